package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/common/model"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
)

// MetricQuery is a metric query over steps Start, Start+Step, …, End
// (Unix ns; Step 0: an instant query at Start), as the frontend hands it
// down: mapped for sharding and split into sub-queries.
type MetricQuery struct {
	Mapping    plan.Mapping
	Start, End int64
	Step       int64
	// Splits are the frontend's sub-queries of a range query, in time
	// order: the querier checks each against max_query_length and
	// max_query_series. Backward is the request's direction, which orders
	// them.
	Splits   []metric.SplitRange
	Backward bool
}

// MetricRun is a planned metric query.
type MetricRun struct {
	c   *backend.Client
	t   tenant.ID
	req metric.Request
	// ownRows: the query reads only vloki's own rows, with the field
	// names of the whole range (data other agents wrote is read with the
	// names stored over the query's range, which a part may not share).
	ownRows bool
}

// Metric plans q: Loki's refusals, max_query_length per sub-query, the
// field names stored over its range, the plan and the lines delete
// requests hide.
func (e *Engine) Metric(ctx context.Context, t tenant.ID, q MetricQuery) (*MetricRun, error) {
	se := q.Mapping.Expr
	var refused *logql.RefusedError
	if errors.As(logql.Refusal(se), &refused) {
		return nil, &Error{Status: refused.Status, Msg: refused.Msg}
	}
	lim := e.limits.For(t)
	if q.Step > 0 {
		if err := checkSplitLengths(time.Duration(lim.MaxQueryLength), q, se); err != nil {
			return nil, err
		}
	}
	f, err := e.Foreign(ctx, t, q.Start-int64(logql.LongestReach(se)), q.End)
	if err != nil {
		return nil, err
	}
	m, err := plan.CompileMetric(q.Mapping, f)
	if err != nil {
		return nil, err
	}
	plan.HideMetric(m, e.Hidden(t))
	var narrowErr error
	plan.EachLog(m, func(lq *plan.LogQuery) {
		if narrowErr == nil {
			narrowErr = e.narrow(ctx, t, lq, q.Start-int64(logql.LongestReach(se)), q.End)
		}
		if narrowErr == nil && f == nil {
			narrowErr = e.within(ctx, t, lq, q.Start-int64(logql.LongestReach(se)), q.End)
		}
	})
	if narrowErr != nil {
		return nil, narrowErr
	}
	return &MetricRun{c: e.c, t: t, ownRows: f == nil, req: metric.Request{
		Query: m, Start: q.Start, End: q.End, Step: q.Step, MaxSeries: lim.MaxQuerySeries,
		SortByValue: sortsByValue(se), Splits: q.Splits, MaxBufferedBytes: int64(lim.MaxQueryBufferedBytes),
	}}, nil
}

// Request is the planned query.
func (r *MetricRun) Request() metric.Request { return r.req }

// Freeze lets the run's range aggregations take and keep samples of
// frozen data (nil: none).
func (r *MetricRun) Freeze(f *metric.Frozen) { r.req.Frozen = f }

// Index lets the run's counts and byte sums over bare selectors come from
// the stream index (nil: none).
func (r *MetricRun) Index(ix metric.Indexed) { r.req.Indexed = ix }

// OwnRows reports a query of vloki's own rows only.
func (r *MetricRun) OwnRows() bool { return r.ownRows }

// Run evaluates the whole query.
func (r *MetricRun) Run(ctx context.Context) (*metric.Result, error) {
	return metric.Run(ctx, r.c, r.t, r.req)
}

// Steps evaluates the steps from `from` on, after the kept ones (whose
// series count against max_query_series).
func (r *MetricRun) Steps(ctx context.Context, from int64, kept *metric.Steps) (*metric.Steps, error) {
	rest := r.req
	rest.Start = from
	return metric.EvalSteps(ctx, r.c, r.t, rest, kept)
}

// checkSplitLengths is the max_query_length check of Loki's queriers on
// a range query: a sub-query (the whole query when unsplit) reads from its
// start less the longest range to its end (offsets shift both). The first
// failing sub-query in request order names its length.
func checkSplitLengths(maxLength time.Duration, q MetricQuery, se logql.SampleExpr) error {
	if maxLength <= 0 {
		return nil
	}
	splits := q.Splits
	if len(splits) == 0 {
		splits = []metric.SplitRange{{Start: q.Start, End: q.End}}
	}
	longest := int64(logql.LongestRange(se))
	for i := range splits {
		sp := splits[i]
		if q.Backward {
			sp = splits[len(splits)-1-i]
		}
		length := time.Duration(sp.End - sp.Start + longest)
		if length > maxLength {
			return &Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf("the query time range exceeds the limit (query length: %s, limit: %s)", length, model.Duration(maxLength))}
		}
	}
	return nil
}

// sortsByValue reports a sort or sort_desc anywhere in the query, which
// makes Loki keep an instant vector in value order.
func sortsByValue(e logql.SampleExpr) bool {
	switch e := e.(type) {
	case *logql.VectorAggregationExpr:
		return e.Op.SortsByValue() || sortsByValue(e.Left)
	case *logql.BinOpExpr:
		return sortsByValue(e.LHS) || sortsByValue(e.RHS)
	}
	return false
}
