package engine

import (
	"context"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// LogQuery is a log query over [Start, End).
type LogQuery struct {
	Selector   logql.LogSelectorExpr
	Start, End time.Time
	Limit      int
	Direction  logs.Direction
	Interval   time.Duration
	Categorize bool
	// KeepParsed keeps each entry's parsed labels with it (the tail's
	// history).
	KeepParsed bool
	// Metadata, when set, is the only structured metadata read (log
	// queries of vloki's own rows).
	Metadata []string
	// ShowDeleted reads lines delete requests hide (patterns: Loki's
	// pattern ingester ignores delete requests; tails).
	ShowDeleted bool
	// MeasureBytes applies max_query_bytes_read before the query runs.
	MeasureBytes bool
}

// LogRun is a planned log query: its answers are querier answers over its
// range or a part of it.
type LogRun struct {
	c   *backend.Client
	t   tenant.ID
	req logs.Request
}

// Logs plans q: the field names stored over its range (data other agents
// wrote), the plan, the lines delete requests hide, max_query_bytes_read,
// and a query at one instant narrowed as Loki's store reads it.
func (e *Engine) Logs(ctx context.Context, t tenant.ID, q LogQuery) (*LogRun, error) {
	start, end := q.Start.UnixNano(), q.End.UnixNano()
	f, err := e.Foreign(ctx, t, start, end)
	if err != nil {
		return nil, err
	}
	lq, err := plan.CompileLog(q.Selector, f)
	if err != nil {
		return nil, err
	}
	if !q.ShowDeleted {
		lq.Hide(e.Hidden(t))
	}
	if err := e.narrow(ctx, t, lq, start, end); err != nil {
		return nil, err
	}
	if q.MeasureBytes {
		if err := e.CheckBytesRead(ctx, t, q.Selector, start, end); err != nil {
			return nil, err
		}
	}
	if end == start {
		if lq, err = e.instantQuery(ctx, t, lq, start); err != nil {
			return nil, err
		}
		end = start + 1 // see instant_range.go
	}
	req := logs.Request{
		Query: lq, Start: start, End: end, Limit: q.Limit, Direction: q.Direction,
		IntervalNs: q.Interval.Nanoseconds(), Categorize: q.Categorize, KeepParsed: q.KeepParsed,
		Metadata: ownRowsOnly(q.Metadata, f),
	}
	if f == nil {
		req.Index, req.Needles = e.index, e.needles
	}
	return &LogRun{c: e.c, t: t, req: req}, nil
}

// Request is the planned query.
func (r *LogRun) Request() logs.Request { return r.req }

// Tenant is the tenant the query reads.
func (r *LogRun) Tenant() tenant.ID { return r.t }

// Answer is one querier's answer over [start, end): the first Limit
// entries in direction order.
func (r *LogRun) Answer(ctx context.Context, start, end int64) (*logs.Result, error) {
	req := r.req
	req.Start, req.End = start, end
	res, _, err := logs.Walk(ctx, r.c, r.t, req)
	return res, err
}

// Window is one querier's answer over [start, end) and the walk that
// produced it (see Whole).
func (r *LogRun) Window(ctx context.Context, start, end int64) (*logs.Result, *logs.Walked, error) {
	req := r.req
	req.Start, req.End = start, end
	return logs.Walk(ctx, r.c, r.t, req)
}

// Whole is the querier's answer over the whole range, and the walk that
// produced it (whose limit may have cut through entries sharing a
// timestamp: logs.Walked.CutsTie).
func (r *LogRun) Whole(ctx context.Context) (*logs.Result, *logs.Walked, error) {
	return logs.Walk(ctx, r.c, r.t, r.req)
}

// ownRowsOnly keeps a metadata restriction for vloki's own rows: rows
// other agents wrote may need every field to rebuild their line.
func ownRowsOnly(metadata []string, f *otheragents.Config) []string {
	if f != nil {
		return nil
	}
	return metadata
}

// Planned is a log query planned by its caller (a tail's history, whose
// plan also filters the live entries).
func (e *Engine) Planned(t tenant.ID, req logs.Request) *LogRun {
	return &LogRun{c: e.c, t: t, req: req}
}
