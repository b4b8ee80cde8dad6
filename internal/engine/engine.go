// Package engine answers LogQL queries: it parses the query, compiles a
// plan and runs it on VictoriaLogs.
package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/common/model"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/exec"
	"github.com/vloki/vloki/internal/foreign"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/logsql"
	"github.com/vloki/vloki/internal/plan"
)

// Limits are the per-query limits the engine enforces.
type Limits struct {
	MaxQuerySeries int
	QueryTimeout   time.Duration
	// MaxQueryLength bounds each sub-query's span plus its longest range,
	// as Loki's queriers check it (0: unlimited).
	MaxQueryLength time.Duration
	// MaxBufferedBytes bounds what one metric query holds while it reads
	// rows (0: unlimited).
	MaxBufferedBytes int64
	// MaxQueryBytesRead is Loki's max_query_bytes_read: the line bytes a
	// query's selectors may read, measured before it runs (0: unlimited).
	MaxQueryBytesRead int64
}

// Engine runs queries against one backend.
type Engine struct {
	c      *backend.Client
	limits Limits
	// foreign, when set, serves data other agents wrote (package foreign).
	foreign *foreign.Config
	names   namesCache
	// extents, when set, keeps range queries' frozen steps.
	extents *Extents
	// hidden, when set, is the filter of the lines the tenant's delete
	// requests hide from log and metric queries.
	hidden func(backend.Tenant) logsql.Filter
}

// WithHidden makes the engine hide from log and metric queries the lines
// hidden(tenant) matches (Loki's query-time filtering of delete requests).
func (e *Engine) WithHidden(hidden func(backend.Tenant) logsql.Filter) *Engine {
	e.hidden = hidden
	return e
}

// Hidden is the filter of the lines the tenant's delete requests hide,
// nil when none.
func (e *Engine) Hidden(t backend.Tenant) logsql.Filter {
	if e.hidden == nil {
		return nil
	}
	return e.hidden(t)
}

// New returns an engine over c; f, when set, makes it serve data other
// agents wrote into VictoriaLogs (its Names are looked up per query).
func New(c *backend.Client, l Limits, f *foreign.Config) *Engine {
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

// RangeRequest is a query_range call.
type RangeRequest struct {
	Expr logql.Expr
	// Text is the query as asked, for cache keys.
	Text       string
	Start, End time.Time
	Step       time.Duration
	Interval   time.Duration
	Limit      int
	Direction  exec.Direction
	Categorize bool
	// QueryTags is the X-Query-Tags header ("datasample" queries are not
	// measured against MaxQueryBytesRead).
	QueryTags string
	// Metadata, when set, is the only structured metadata read (log
	// queries of vloki's own rows).
	Metadata []string
	// ShowDeleted reads lines delete requests hide (patterns: Loki's
	// pattern ingester ignores delete requests).
	ShowDeleted bool
}

// InstantRequest is a query call.
type InstantRequest struct {
	Expr      logql.Expr
	Time      time.Time
	Limit     int
	Direction exec.Direction
	// AsQuerier evaluates the query as Loki's querier does when no query
	// frontend rewrote it first: the ruler's local evaluation. Without it
	// the frontend's rewrites apply, as on /loki/api/v1/query.
	AsQuerier bool
}

// Result is a query answer: streams for log queries, a metric result
// otherwise.
type Result struct {
	Streams *exec.LogResult
	Metric  *exec.MetricResult
}

// Range answers query_range.
func (e *Engine) Range(ctx context.Context, t backend.Tenant, req RangeRequest) (*Result, error) {
	ctx, cancel := e.WithQueryTimeout(ctx)
	defer cancel()
	sel, ok := req.Expr.(logql.LogSelectorExpr)
	if !ok {
		step := req.Step.Milliseconds() * 1e6
		start, end := alignToStep(req.Start.UnixNano(), req.End.UnixNano(), step)
		if err := e.checkBytesRead(ctx, t, req.Expr, start, end); err != nil {
			return nil, contextError(ctx, err)
		}
		return e.metric(ctx, t, metricQuery{expr: req.Expr, text: req.Text}, start, end, step, req.Direction == exec.Backward)
	}
	f, err := e.Foreign(ctx, t, req.Start.UnixNano(), req.End.UnixNano())
	if err != nil {
		return nil, contextError(ctx, err)
	}
	lq, err := plan.CompileLog(sel, f)
	if err != nil {
		return nil, err
	}
	if !req.ShowDeleted {
		lq.Hide(e.Hidden(t))
	}
	if logQuerySized(sel, req.QueryTags) {
		if err := e.checkBytesRead(ctx, t, sel, req.Start.UnixNano(), req.End.UnixNano()); err != nil {
			return nil, contextError(ctx, err)
		}
	}
	start, end := req.Start.UnixNano(), req.End.UnixNano()
	if end == start {
		if lq, err = e.instantQuery(ctx, t, lq, start); err != nil {
			return nil, contextError(ctx, err)
		}
		end = start + 1 // see instant_range.go
	}
	res, err := exec.RunLogs(ctx, e.c, t, exec.LogRequest{
		Query: lq, Start: start, End: end, Limit: req.Limit,
		Direction: req.Direction, IntervalNs: req.Interval.Nanoseconds(), Categorize: req.Categorize,
		Metadata: ownRowsOnly(req.Metadata, f),
	})
	if err != nil {
		return nil, contextError(ctx, err)
	}
	return &Result{Streams: res}, nil
}

// Instant answers query.
func (e *Engine) Instant(ctx context.Context, t backend.Tenant, req InstantRequest) (*Result, error) {
	if _, ok := req.Expr.(logql.LogSelectorExpr); ok {
		return nil, &Error{Status: http.StatusBadRequest, Msg: msgLogOnInstant}
	}
	ctx, cancel := e.WithQueryTimeout(ctx)
	defer cancel()
	ts := req.Time.UnixNano()
	if err := e.checkBytesRead(ctx, t, req.Expr, ts, ts); err != nil {
		return nil, contextError(ctx, err)
	}
	return e.metric(ctx, t, metricQuery{expr: req.Expr, asQuerier: req.AsQuerier}, ts, ts, 0, false)
}

// metricQuery is a metric query and its text as asked (empty: not to be
// cached).
type metricQuery struct {
	expr logql.Expr
	text string
	// asQuerier skips the frontend's rewrites (InstantRequest.AsQuerier).
	asQuerier bool
}

// metric runs a metric query; step 0 makes it an instant query. backward
// is the request's direction, which orders the frontend's sub-queries.
func (e *Engine) metric(ctx context.Context, t backend.Tenant, q metricQuery, start, end, step int64, backward bool) (*Result, error) {
	se, ok := q.expr.(logql.SampleExpr)
	if !ok {
		return nil, unsupported(fmt.Sprintf("the query %s", q.expr))
	}
	var refused *logql.RefusedError
	if errors.As(logql.Refusal(se), &refused) {
		return nil, &Error{Status: refused.Status, Msg: refused.Msg}
	}
	splits := splitRanges(start, end, step, se)
	if step > 0 {
		if err := e.checkSplitLengths(splits, start, end, se, backward); err != nil {
			return nil, err
		}
	}
	f, err := e.Foreign(ctx, t, start-maxRange(se), end)
	if err != nil {
		return nil, contextError(ctx, err)
	}
	compile := plan.CompileMetric
	if q.asQuerier {
		compile = plan.CompileQuerierMetric
	}
	m, err := compile(se, f)
	if err != nil {
		return nil, err
	}
	plan.HideMetric(m, e.Hidden(t))
	req := exec.MetricRequest{
		Query: m, Start: start, End: end, Step: step, MaxSeries: e.limits.MaxQuerySeries, SortByValue: sortsByValue(se),
		Splits: splits, Backward: backward, MaxBufferedBytes: e.limits.MaxBufferedBytes,
	}
	run := exec.RunMetric
	// Data other agents wrote is read with the field names stored over
	// the query's range, which a part of it may not share.
	if e.extents != nil && q.text != "" && len(splits) > 0 && f == nil && !readsAhead(se) {
		run = func(ctx context.Context, _ *backend.Client, t backend.Tenant, req exec.MetricRequest) (*exec.MetricResult, error) {
			return e.rangeFromExtents(ctx, t, q.text, req)
		}
	}
	res, err := run(ctx, e.c, t, req)
	if err != nil {
		return nil, contextError(ctx, err)
	}
	return &Result{Metric: res}, nil
}

// checkSplitLengths is the max_query_length check of Loki's queriers on
// a range query: a sub-query (the whole query when unsplit) reads from its
// start less the longest range to its end (offsets shift both). The first
// failing sub-query in request order names its length.
func (e *Engine) checkSplitLengths(splits []exec.SplitRange, start, end int64, se logql.SampleExpr, backward bool) error {
	if e.limits.MaxQueryLength <= 0 {
		return nil
	}
	if len(splits) == 0 {
		splits = []exec.SplitRange{{Start: start, End: end}}
	}
	longest := longestRange(se)
	for i := range splits {
		sp := splits[i]
		if backward {
			sp = splits[len(splits)-1-i]
		}
		length := time.Duration(sp.End - sp.Start + longest)
		if length > e.limits.MaxQueryLength {
			return &Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf("the query time range exceeds the limit (query length: %s, limit: %s)", length, model.Duration(e.limits.MaxQueryLength))}
		}
	}
	return nil
}

// readsAhead reports a negative offset: a step then reads data after its
// own time, which the freshness rule does not cover.
func readsAhead(e logql.SampleExpr) bool {
	found := false
	logql.Walk(e, func(n logql.Expr) bool {
		if r, ok := n.(*logql.RangeAggregationExpr); ok && r.Left.Offset < 0 {
			found = true
		}
		return !found
	})
	return found
}

// sortsByValue reports a sort or sort_desc anywhere in the query, which
// makes Loki keep an instant vector in value order.
func sortsByValue(e logql.SampleExpr) bool {
	switch e := e.(type) {
	case *logql.VectorAggregationExpr:
		return e.Op == "sort" || e.Op == "sort_desc" || sortsByValue(e.Left)
	case *logql.BinOpExpr:
		return sortsByValue(e.LHS) || sortsByValue(e.RHS)
	}
	return false
}

func unsupported(what string) error {
	return &Error{Status: http.StatusNotImplemented, Msg: fmt.Sprintf("vloki does not support %s yet", what)}
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

// ownRowsOnly keeps a metadata restriction for vloki's own rows: rows
// other agents wrote may need every field to rebuild their line.
func ownRowsOnly(metadata []string, f *foreign.Config) []string {
	if f != nil {
		return nil
	}
	return metadata
}

// alignToStep rounds start down and end up to multiples of the step, as
// Loki's query frontend does before splitting a metric query (the step
// counts in whole milliseconds there).
func alignToStep(start, end, step int64) (int64, int64) {
	if step <= 0 {
		return start, end
	}
	if mod := end % step; mod != 0 {
		end += step - mod
	}
	return start - start%step, end
}

// Bounded runs a read under the query timeout, as Range and Instant run:
// a read ended by a cancelled or expired context fails with Loki's errors.
func (e *Engine) Bounded(ctx context.Context, read func(context.Context) error) error {
	ctx, cancel := e.WithQueryTimeout(ctx)
	defer cancel()
	if err := read(ctx); err != nil {
		return contextError(ctx, err)
	}
	return nil
}

// WithQueryTimeout bounds ctx by the query timeout.
func (e *Engine) WithQueryTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, e.limits.QueryTimeout)
}
