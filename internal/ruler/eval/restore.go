package eval

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/util/annotations"
)

// Loki's ruler restores the for state of alerts through the Queryable it
// gives Prometheus' rules manager (its MemStore). Prometheus'
// RestoreForState, run once per group after the second evaluation of a
// new manager, selects ALERTS_FOR_STATE of each alerting rule whose for
// is at least for_grace_period, with the rule's static labels and
// alertname as matchers, from the instant the restore runs (maxt). The
// MemStore does not read stored series: it runs the rule's query at
// maxt − for and makes each result sample an ALERTS_FOR_STATE series
// (the sample's labels, alertname, no rule labels) holding one sample at
// maxt whose value is maxt − for in whole seconds. It answers the one
// series whose labels equal the matchers' exactly, or none. mint, hence
// for_outage_tolerance, plays no part.
//
// Prometheus then sets the matching active alert's activeAt to that
// value: downAt − activeAt is the rule's for, so no time remains pending
// and the alert fires at the next evaluation (the grace period never
// applies). Because the matchers hold the rule's labels but the
// synthesised series does not, only alerts whose labels are exactly the
// rule's static labels and alertname (a query answering a sample
// without labels, a rule whose labels the query's output already
// carries) are restored — Loki's behaviour at its pinned Prometheus.

// alertDef is an alerting rule as the restore looks it up: by name, the
// first one in file, group and rule order (Loki's lookup ranges over a
// map, so with several rules of one name it picks any).
type alertDef struct {
	name string
	expr string
	hold time.Duration
}

// ruleIndex is the tenant's alerting rules as last loaded, read by the
// restore outside the manager's lock (which Update holds while it waits
// for the groups that restore).
type ruleIndex struct {
	mu     sync.RWMutex
	alerts []alertDef
}

// set indexes the groups of files, in the order of the sorted names.
func (ix *ruleIndex) set(files map[string]*rulefmt.RuleGroups, sorted []string) {
	var alerts []alertDef
	for _, f := range sorted {
		for _, g := range files[f].Groups {
			for _, r := range g.Rules {
				if r.Alert != "" {
					alerts = append(alerts, alertDef{name: r.Alert, expr: r.Expr, hold: time.Duration(r.For)})
				}
			}
		}
	}
	ix.mu.Lock()
	ix.alerts = alerts
	ix.mu.Unlock()
}

func (ix *ruleIndex) find(name string) (alertDef, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for _, a := range ix.alerts {
		if a.name == name {
			return a, true
		}
	}
	return alertDef{}, false
}

// forStateQueryable is Loki's MemStore over vloki's query function.
// skip, when set, hides the series of alerts restored otherwise (from
// the saved state), whose activeAt must stay as restored.
type forStateQueryable struct {
	query rules.QueryFunc
	rules *ruleIndex
	skip  func(labels.Labels) bool
	log   *slog.Logger
}

func (q *forStateQueryable) Querier(_, maxt int64) (storage.Querier, error) {
	return &forStateQuerier{q: q, ts: time.UnixMilli(maxt), cache: map[string]promql.Vector{}}, nil
}

// forStateQuerier answers the Selects of one RestoreForState: each
// rule's query runs once, its synthesised series cached by rule name.
type forStateQuerier struct {
	q     *forStateQueryable
	ts    time.Time
	mu    sync.Mutex
	cache map[string]promql.Vector
}

func (fq *forStateQuerier) Select(ctx context.Context, _ bool, _ *storage.SelectHints, matchers ...*labels.Matcher) storage.SeriesSet {
	b := labels.NewBuilder(labels.EmptyLabels())
	name := ""
	for _, m := range matchers {
		b.Set(m.Name, m.Value)
		if m.Name == labels.AlertName && m.Type == labels.MatchEqual {
			name = m.Value
		}
	}
	if name == "" {
		fq.q.log.Error("ruler: for state asked without alertname")
		return storage.EmptySeriesSet()
	}
	vec, ok := fq.forState(ctx, name)
	if !ok {
		return storage.EmptySeriesSet()
	}
	want := b.Labels()
	for _, s := range vec {
		if labels.Equal(s.Metric, want) {
			if fq.q.skip != nil && fq.q.skip(dropMetricName(want)) {
				return storage.EmptySeriesSet()
			}
			return &oneSeries{s: storage.NewListSeries(s.Metric, []chunks.Sample{floatSample{t: s.T, f: s.F}})}
		}
	}
	return storage.EmptySeriesSet()
}

// forState is the rule's ALERTS_FOR_STATE series at the querier's
// instant, from its query at the instant minus its for; false when the
// rule is unknown or its query fails (not cached then, as in Loki).
func (fq *forStateQuerier) forState(ctx context.Context, name string) (promql.Vector, bool) {
	fq.mu.Lock()
	defer fq.mu.Unlock()
	if vec, ok := fq.cache[name]; ok {
		return vec, true
	}
	rule, ok := fq.q.rules.find(name)
	if !ok {
		fq.q.log.Error("ruler: restoring the for state of an untracked alerting rule", "name", name)
		return nil, false
	}
	checkTime := fq.ts.Add(-rule.hold)
	res, err := fq.q.query(ctx, rule.expr, checkTime)
	if err != nil {
		fq.q.log.Info("ruler: for state query failed", "rule", name, "err", err)
		return nil, false
	}
	vec := forStateVector(res, name, fq.ts, checkTime)
	fq.cache[name] = vec
	return vec, true
}

// forStateVector is Loki's synthesis: each sample's labels with
// __name__=ALERTS_FOR_STATE and alertname, at ts, valued checkTime in
// whole seconds.
func forStateVector(res promql.Vector, alert string, ts, checkTime time.Time) promql.Vector {
	out := make(promql.Vector, 0, len(res))
	for _, s := range res {
		b := labels.NewBuilder(s.Metric)
		b.Set(labels.MetricName, "ALERTS_FOR_STATE")
		b.Set(labels.AlertName, alert)
		out = append(out, promql.Sample{Metric: b.Labels(), T: ts.UnixMilli(), F: float64(checkTime.Unix())})
	}
	return out
}

func dropMetricName(ls labels.Labels) labels.Labels {
	return labels.NewBuilder(ls).Del(labels.MetricName).Labels()
}

func (*forStateQuerier) LabelValues(context.Context, string, *storage.LabelHints, ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	return nil, nil, errors.New("unimplemented")
}

func (*forStateQuerier) LabelNames(context.Context, *storage.LabelHints, ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	return nil, nil, errors.New("unimplemented")
}

func (*forStateQuerier) Close() error { return nil }

// oneSeries is a series set of one series.
type oneSeries struct {
	s    storage.Series
	done bool
}

func (o *oneSeries) Next() bool {
	if o.done {
		return false
	}
	o.done = true
	return true
}
func (o *oneSeries) At() storage.Series              { return o.s }
func (*oneSeries) Err() error                        { return nil }
func (*oneSeries) Warnings() annotations.Annotations { return nil }
func (f floatSample) T() int64                       { return f.t }
func (floatSample) ST() int64                        { return 0 }
func (f floatSample) F() float64                     { return f.f }
func (floatSample) H() *histogram.Histogram          { return nil }
func (floatSample) FH() *histogram.FloatHistogram    { return nil }
func (floatSample) Type() chunkenc.ValueType         { return chunkenc.ValFloat }
func (f floatSample) Copy() chunks.Sample            { return f }

// floatSample is one float sample of a synthesised series.
type floatSample struct {
	t int64
	f float64
}
