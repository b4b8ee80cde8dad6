// Package engine is Loki's querier: it plans a (sub-)query the frontend
// hands it (package frontend: splits, shard mapping, extents, merges) and
// runs it on VictoriaLogs, with the querier's limits and errors.
package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// Engine runs queries against one backend.
type Engine struct {
	c *backend.Client
	// limits are each tenant's: series, timeout, query length, bytes
	// read and held.
	limits *limits.Overrides
	// foreign, when set, serves data other agents wrote (package otheragents).
	foreign *otheragents.Config
	names   namesCache
	// hidden, when set, is the filter of the lines the tenant's delete
	// requests hide from log and metric queries.
	hidden func(tenant.ID) logsql.Filter
	// lineKinds, when set, tells the kinds of lines a tenant's streams
	// may hold over a range (the stream index), so plans narrow their
	// pushdowns (plan/narrow.go).
	lineKinds LineKindsFunc
	// index, when set, holds the entry times of vloki's own rows: log
	// walks cut their batches where it tells (logs.Request.Index).
	index logs.Index
	// needles, when set, tells the parts of a range whose lines may hold
	// a string (logs.Request.Needles).
	needles logs.Needles
}

// LineKindsFunc tells the kinds of lines the tenant's streams matching ms
// may hold in [start, end] (Unix ns, inclusive); ok is false when it
// cannot tell.
type LineKindsFunc func(ctx context.Context, t tenant.ID, ms []*logql.Matcher, start, end int64) (kinds lokidata.LineKinds, ok bool, err error)

// WithLineKinds makes the engine narrow the pushdowns of its plans with
// what kinds tells of their ranges.
func (e *Engine) WithLineKinds(kinds LineKindsFunc) *Engine {
	e.lineKinds = kinds
	return e
}

// WithIndex makes log queries over vloki's own rows walk by the entry
// times ix holds.
func (e *Engine) WithIndex(ix logs.Index) *Engine {
	e.index = ix
	return e
}

// WithNeedles makes log queries whose rows must hold a string walk only
// the parts of their range where n says such rows can be, and metric
// queries read only those.
func (e *Engine) WithNeedles(n logs.Needles) *Engine {
	e.needles = n
	return e
}

// narrow narrows q's pushdown for the range [start, end] when the kinds
// of its lines are known there.
func (e *Engine) narrow(ctx context.Context, t tenant.ID, q *plan.LogQuery, start, end int64) error {
	if e.lineKinds == nil || !q.Narrows() {
		return nil
	}
	kinds, ok, err := e.lineKinds(ctx, t, q.Selector, start, end)
	if err != nil || !ok {
		return err
	}
	q.Narrow(kinds)
	return nil
}

// within restricts q's pushdown to the parts of [start, end] where the
// needle index says its rows can be, when it narrows the range (see
// logs.NeedleParts): a metric query's reads, whichever path they take
// (rows, stats buckets, stream hits), then skip the hours without them.
func (e *Engine) within(ctx context.Context, t tenant.ID, q *plan.LogQuery, start, end int64) error {
	if e.needles == nil || len(q.Contains) == 0 || start > end {
		return nil
	}
	parts, ok, err := logs.NeedleParts(ctx, e.needles, t, q, start, end)
	if ok {
		q.Within(parts)
	}
	return err
}

// WithHidden makes the engine hide from log and metric queries the lines
// hidden(tenant) matches (Loki's query-time filtering of delete requests).
func (e *Engine) WithHidden(hidden func(tenant.ID) logsql.Filter) *Engine {
	e.hidden = hidden
	return e
}

// Hidden is the filter of the lines the tenant's delete requests hide,
// nil when none.
func (e *Engine) Hidden(t tenant.ID) logsql.Filter {
	if e.hidden == nil {
		return nil
	}
	return e.hidden(t)
}

// New returns an engine over c; f, when set, makes it serve data other
// agents wrote into VictoriaLogs (its Names are looked up per query).
func New(c *backend.Client, l *limits.Overrides, f *otheragents.Config) *Engine {
	return &Engine{c: c, limits: l, foreign: f}
}

// Error is a query failure with the HTTP status Loki would answer.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Loki's texts for cancelled and timed-out queries.
const (
	msgCancelled    = "the request was cancelled by the client"
	msgTimeout      = "request timed out, decrease the duration of the request or add more label matchers (prefer exact match over regex match) to reduce the amount of data processed"
	msgLogOnInstant = "log queries are not supported as an instant query type, please change your query to a range query type"
)

// StatusClientClosedRequest is the non-standard 499 Loki answers with.
const StatusClientClosedRequest = 499

// Result is a query answer: streams for log queries, a metric result
// otherwise.
type Result struct {
	Streams *logs.Result
	Metric  *metric.Result
}

// Run runs fn under the tenant's query timeout, with Loki's errors for a
// query cancelled or timed out.
func (e *Engine) Run(ctx context.Context, t tenant.ID, fn func(context.Context) error) error {
	ctx, cancel := e.WithQueryTimeout(ctx, t)
	defer cancel()
	if err := fn(ctx); err != nil {
		return contextError(ctx, err)
	}
	return nil
}

// WithQueryTimeout bounds ctx by the tenant's query timeout, for a read
// that reports its own errors (a tail's history).
func (e *Engine) WithQueryTimeout(ctx context.Context, t tenant.ID) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, time.Duration(e.limits.For(t).QueryTimeout))
}

// ErrLogOnInstant is Loki's refusal of a log query as an instant query.
func ErrLogOnInstant() error {
	return &Error{Status: http.StatusBadRequest, Msg: msgLogOnInstant}
}

// InstantRequest is an instant metric query as a querier runs it when no
// frontend mapped it first: the ruler's local evaluation.
type InstantRequest struct {
	Expr      logql.Expr
	Time      time.Time
	Limit     int
	Direction logs.Direction
}

// Instant answers an instant query as Loki's querier evaluates it.
func (e *Engine) Instant(ctx context.Context, t tenant.ID, req InstantRequest) (*Result, error) {
	if _, ok := req.Expr.(logql.LogSelectorExpr); ok {
		return nil, ErrLogOnInstant()
	}
	var res *Result
	err := e.Run(ctx, t, func(ctx context.Context) error {
		ts := req.Time.UnixNano()
		if err := e.CheckBytesRead(ctx, t, req.Expr, ts, ts); err != nil {
			return err
		}
		se, ok := req.Expr.(logql.SampleExpr)
		if !ok {
			return Unsupported(req.Expr)
		}
		run, err := e.Metric(ctx, t, MetricQuery{Mapping: plan.QuerierMapping(se), Start: ts, End: ts})
		if err != nil {
			return err
		}
		m, err := run.Run(ctx)
		res = &Result{Metric: m}
		return err
	})
	return res, err
}

// Unsupported is the error for a query vloki cannot answer.
func Unsupported(e logql.Expr) error {
	return &Error{Status: http.StatusNotImplemented, Msg: fmt.Sprintf("vloki does not support the query %s yet", e)}
}

// contextError turns a cancelled or expired context into Loki's errors.
func contextError(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &Error{Status: http.StatusGatewayTimeout, Msg: msgTimeout}
	case errors.Is(ctx.Err(), context.Canceled):
		return &Error{Status: StatusClientClosedRequest, Msg: msgCancelled}
	}
	return err
}
