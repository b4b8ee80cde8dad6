package frontend

import (
	"context"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/metric"
)

// After the results cache and coalescing (Serve), a query meets the
// frontend's query stages, in this order: a metric query is aligned to
// its step, measured against max_query_bytes_read, split into Loki's
// sub-queries (split.go) and mapped for sharding (shard.go); the engine
// plans it as a querier would; kept steps are reused (extents.go); the
// answers are merged as Loki's frontend merges them (merge_matrix.go). A
// log query is planned by the engine and answered whole, or split by
// hour and merged where that changes the answer (merge_logs.go).

// RangeRequest is a range query as the frontend's stages take it.
type RangeRequest struct {
	Expr logql.Expr
	// Text is the query as asked, for the extents' keys.
	Text       string
	Start, End time.Time
	Step       time.Duration
	Interval   time.Duration
	Limit      int
	Direction  logs.Direction
	Categorize bool
	// Unbuilt: Expr is the selector of a log query one of whose stages
	// fails to build, asked with categorize-labels (loghttp.RangeQuery).
	Unbuilt bool
	// QueryTags is the X-Query-Tags header ("datasample" queries are not
	// measured against max_query_bytes_read).
	QueryTags string
	// Metadata, when set, is the only structured metadata read (log
	// queries of vloki's own rows).
	Metadata []string
	// ShowDeleted reads lines delete requests hide (patterns: Loki's
	// pattern ingester ignores delete requests).
	ShowDeleted bool
	// ReadsAhead: a negative offset reads data after a step's time, which
	// the freshness rule does not cover (no steps are kept).
	ReadsAhead bool
	// State is what Serve read for the request: steps are kept under it.
	State ReadState
}

// InstantRequest is an instant query.
type InstantRequest struct {
	Expr      logql.Expr
	Time      time.Time
	Limit     int
	Direction logs.Direction
}

// Range answers a range query through the frontend's query stages.
func (f *Frontend) Range(ctx context.Context, t tenant.ID, req RangeRequest) (*engine.Result, error) {
	var res *engine.Result
	err := f.cfg.Engine.Run(ctx, t, func(ctx context.Context) error {
		var err error
		if sel, ok := req.Expr.(logql.LogSelectorExpr); ok {
			res, err = f.rangeLogs(ctx, t, sel, req)
		} else {
			res, err = f.rangeMetric(ctx, t, req)
		}
		return err
	})
	return res, err
}

func (f *Frontend) rangeLogs(ctx context.Context, t tenant.ID, sel logql.LogSelectorExpr, req RangeRequest) (*engine.Result, error) {
	if req.Unbuilt {
		return f.unbuiltLogs(ctx, t, sel, req)
	}
	run, err := f.cfg.Engine.Logs(ctx, t, engine.LogQuery{
		Selector: sel, Start: req.Start, End: req.End, Limit: req.Limit, Direction: req.Direction,
		Interval: req.Interval, Categorize: req.Categorize, Metadata: req.Metadata, ShowDeleted: req.ShowDeleted,
		MeasureBytes: engine.LogQuerySized(sel, req.QueryTags),
	})
	if err != nil {
		return nil, err
	}
	res, err := f.recentLogs(ctx, run, spanName(req.Text, req.ShowDeleted, run.Request()), f.cfg.Samples.For(t, req.State))
	if err != nil {
		return nil, err
	}
	return &engine.Result{Streams: res}, nil
}

// unbuiltLogs answers a log query whose stage fails to build, asked with
// categorize-labels: Loki's queriers drop the error (api.unbuiltLogQuery)
// and answer no streams, once its frontend's checks pass.
func (f *Frontend) unbuiltLogs(ctx context.Context, t tenant.ID, sel logql.LogSelectorExpr, req RangeRequest) (*engine.Result, error) {
	if engine.LogQuerySized(sel, req.QueryTags) {
		if err := f.cfg.Engine.CheckBytesRead(ctx, t, sel, req.Start.UnixNano(), req.End.UnixNano()); err != nil {
			return nil, err
		}
	}
	return &engine.Result{Streams: &logs.Result{}}, nil
}

func (f *Frontend) rangeMetric(ctx context.Context, t tenant.ID, req RangeRequest) (*engine.Result, error) {
	step := req.Step.Milliseconds() * 1e6
	start, end := alignToStep(req.Start.UnixNano(), req.End.UnixNano(), step)
	if err := f.cfg.Engine.CheckBytesRead(ctx, t, req.Expr, start, end); err != nil {
		return nil, err
	}
	se, ok := req.Expr.(logql.SampleExpr)
	if !ok {
		return nil, engine.Unsupported(req.Expr)
	}
	splits := splitRanges(start, end, step, se)
	backward := req.Direction == logs.Backward
	run, err := f.cfg.Engine.Metric(ctx, t, engine.MetricQuery{
		Mapping: Shard(se), Start: start, End: end, Step: step, Splits: splits, Backward: backward,
	})
	if err != nil {
		return nil, err
	}
	f.index(run)
	var m *metric.Result
	// Data other agents wrote is read with the field names stored over
	// the query's range, which a part of it may not share.
	keeps := req.Text != "" && len(splits) > 0 && run.OwnRows() && !req.ReadsAhead
	if keeps {
		run.Freeze(f.cfg.Samples.For(t, req.State))
	}
	if x := f.cfg.Extents; x != nil && keeps {
		m, err = x.answer(ctx, t, req.Text, req.State, run)
	} else {
		m, err = run.Run(ctx)
	}
	if err != nil {
		return nil, err
	}
	mergeMatrix(m, splits, backward)
	return &engine.Result{Metric: m}, nil
}

// Instant answers an instant query: mapped for sharding, measured against
// max_query_bytes_read, evaluated by the engine.
func (f *Frontend) Instant(ctx context.Context, t tenant.ID, req InstantRequest) (*engine.Result, error) {
	if _, ok := req.Expr.(logql.LogSelectorExpr); ok {
		return nil, engine.ErrLogOnInstant()
	}
	var res *engine.Result
	err := f.cfg.Engine.Run(ctx, t, func(ctx context.Context) error {
		ts := req.Time.UnixNano()
		if err := f.cfg.Engine.CheckBytesRead(ctx, t, req.Expr, ts, ts); err != nil {
			return err
		}
		se, ok := req.Expr.(logql.SampleExpr)
		if !ok {
			return engine.Unsupported(req.Expr)
		}
		run, err := f.cfg.Engine.Metric(ctx, t, engine.MetricQuery{Mapping: Shard(se), Start: ts, End: ts})
		if err != nil {
			return err
		}
		f.index(run)
		m, err := run.Run(ctx)
		res = &engine.Result{Metric: m}
		return err
	})
	return res, err
}

// index hands the stream index to a run of vloki's own rows.
func (f *Frontend) index(run *engine.MetricRun) {
	if f.cfg.Indexed != nil && run.OwnRows() {
		run.Index(f.cfg.Indexed)
	}
}

// Logs answers a planned log query as Loki's frontend does (a tail's
// history).
func (f *Frontend) Logs(ctx context.Context, run *engine.LogRun) (*logs.Result, error) {
	return answerLogs(ctx, run)
}
