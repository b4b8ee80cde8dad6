// Package eval evaluates the rule store's rules as Loki v3.7.8's ruler
// does: Prometheus' rules manager (at Loki's pinned version), one per
// tenant, driving LogQL instant queries through vloki's engine; alerts go
// to Alertmanager through Prometheus' notifier, recorded samples to a
// remote-write receiver through a per-tenant WAL.
package eval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/promql/parser/posrange"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/storage"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/metric"
)

// Engine runs instant queries (vloki's engine.Engine).
type Engine interface {
	Instant(ctx context.Context, t tenant.ID, req engine.InstantRequest) (*engine.Result, error)
}

// ErrNotVectorOrScalar is Loki's error for a rule whose query answers
// anything but a vector or a scalar (a log query, say).
var ErrNotVectorOrScalar = errors.New("rule result is not a vector or scalar")

// QueryFunc is Loki's rule query function: the rule's LogQL as an instant
// query at t for the tenant, its vector as is, a scalar as one sample
// without labels; an engine error is "rule evaluation failed: <err>".
// wait, when set, runs first: vloki's read-your-writes, so the query sees
// every push of the tenant acknowledged before it (Loki's ruler misses
// lines not yet visible).
func QueryFunc(e Engine, t tenant.ID, wait func(context.Context, tenant.ID) error) rules.QueryFunc {
	return func(ctx context.Context, q string, ts time.Time) (promql.Vector, error) {
		if wait != nil {
			_ = wait(ctx, t) // a failed flush: the query meets the same trouble
		}
		expr, err := logql.ParseExpr(q)
		if err != nil {
			return nil, fmt.Errorf("rule evaluation failed: %w", err)
		}
		if _, ok := expr.(logql.LogSelectorExpr); ok {
			// Loki's engine answers streams, which its ruler refuses.
			return nil, ErrNotVectorOrScalar
		}
		res, err := e.Instant(ctx, t, engine.InstantRequest{Expr: expr, Time: ts, Direction: logs.Forward})
		if err != nil {
			return nil, fmt.Errorf("rule evaluation failed: %w", err)
		}
		return toVector(res, ts)
	}
}

// toVector converts an instant query's answer for the rules manager.
func toVector(res *engine.Result, ts time.Time) (promql.Vector, error) {
	if res == nil || res.Metric == nil {
		return nil, ErrNotVectorOrScalar
	}
	m := res.Metric
	switch m.Kind {
	case metric.Scalar:
		return promql.Vector{{T: ts.UnixMilli(), F: m.Scalar.Value, Metric: labels.EmptyLabels()}}, nil
	case metric.Vector:
		v := make(promql.Vector, 0, len(m.Series))
		for _, s := range m.Series {
			if len(s.Points) == 0 {
				continue
			}
			b := labels.NewScratchBuilder(len(s.Metric))
			for _, l := range s.Metric {
				b.Add(l.Name, l.Value)
			}
			b.Sort()
			// At the evaluation time, as Loki's engine answers an instant
			// query (recorded samples are written at it).
			v = append(v, promql.Sample{T: ts.UnixMilli(), F: s.Points[len(s.Points)-1].Value, Metric: b.Labels()})
		}
		return v, nil
	}
	return nil, ErrNotVectorOrScalar
}

// Expr carries a rule's LogQL through the rules manager, which prints
// it (API, templates, notifications) and hands its text back to the
// QueryFunc: Loki's canonical re-print, as Loki's exprAdapter.
type Expr struct{ E logql.Expr }

// String is Loki's re-print of the LogQL.
func (e Expr) String() string { return e.E.String() }

// Pretty is the same text: LogQL has no pretty-printer here.
func (e Expr) Pretty(int) string { return e.E.String() }

// PositionRange is empty: positions are PromQL's.
func (Expr) PositionRange() posrange.PositionRange { return posrange.PositionRange{} }

// Type is a vector, as every rule's result is used.
func (Expr) Type() parser.ValueType { return parser.ValueTypeVector }

// PromQLExpr marks Expr as a parser.Expr.
func (Expr) PromQLExpr() {}

// loader serves a tenant's rule groups from memory, keyed by their
// mapped file names, and parses LogQL.
type loader struct {
	files map[string]*rulefmt.RuleGroups
}

func (l *loader) Load(identifier string, _ bool, _ model.ValidationScheme) (*rulefmt.RuleGroups, []error) {
	g, ok := l.files[identifier]
	if !ok {
		return nil, []error{fmt.Errorf("rule file %s not found", identifier)}
	}
	return g, nil
}

func (l *loader) Parse(query string) (parser.Expr, error) {
	e, err := logql.ParseExpr(query)
	if err != nil {
		return nil, err
	}
	return Expr{e}, nil
}

// noDependencies leaves rules independent: LogQL rules cannot read each
// other's results, and PromQL's analysis must not run on LogQL.
type noDependencies struct{}

func (noDependencies) AnalyseRules([]rules.Rule) {}

// discard is the appendable of a ruler without remote write: recorded
// samples and ALERTS series go nowhere, as Loki's with remote_write off.
type discard struct{}

func (discard) Appender(context.Context) storage.Appender { return discardAppender{} }

type discardAppender struct{ storage.Appender }

func (discardAppender) Append(storage.SeriesRef, labels.Labels, int64, float64) (storage.SeriesRef, error) {
	return 0, nil
}
func (discardAppender) SetOptions(*storage.AppendOptions) {}
func (discardAppender) Commit() error                     { return nil }
func (discardAppender) Rollback() error                   { return nil }
