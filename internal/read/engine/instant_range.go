package engine

import (
	"context"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
)

// A log query whose start equals its end reads the entries at that
// instant as Loki's store does. Its index yields a chunk only when the
// chunk begins in a millisecond before the query's end (chunk bounds
// [from, through], query bounds [start, end), in milliseconds), and the
// chunk is then read with both bounds inclusive. A stream's first entries
// begin its first chunk, so at their instant Loki never returns them,
// while the entries at an instant within a chunk come back. Where the data
// still sits in Loki's ingesters its answer depends on their blocks
// (none from a head block, all from a cut one): vloki answers as the store
// does once it holds the data.

// instantQuery returns lq narrowed to the streams Loki's store answers
// for at the instant ts: without those whose entries at ts are their
// first (none in an earlier millisecond).
func (e *Engine) instantQuery(ctx context.Context, t tenant.ID, lq *plan.LogQuery, ts int64) (*plan.LogQuery, error) {
	streams := plan.StreamFilter(lq.Selector, lq.Foreign)
	at, err := e.streamIDs(ctx, t, streams, ts, ts, 0)
	if err != nil {
		return nil, err
	}
	earlier := ts - ts%1_000_000 - 1 // the end of the millisecond before ts's
	var first []string
	for _, id := range at {
		older := []string(nil)
		if earlier > 0 {
			older, err = e.streamIDs(ctx, t, logsql.And{streams, logsql.StreamIDs{id}}, 1, earlier, 1)
			if err != nil {
				return nil, err
			}
		}
		if len(older) == 0 {
			first = append(first, id)
		}
	}
	if len(first) == 0 {
		return lq, nil
	}
	narrowed := *lq
	narrowed.Pushdown = logsql.And{lq.Pushdown, logsql.Not{F: logsql.StreamIDs(first)}}
	return &narrowed, nil
}

// streamIDs lists the streams with rows matching f in [start, end] (both
// inclusive), reading at most limit rows when > 0.
func (e *Engine) streamIDs(ctx context.Context, t tenant.ID, f logsql.Filter, start, end int64, limit int) ([]string, error) {
	q := logsql.Query{Filter: logsql.And{logsql.TimeRange{Start: start, End: end}, f}, Pipes: []logsql.Pipe{logsql.Fields{"_stream_id"}}}
	seen := map[string]bool{}
	var ids []string
	err := e.c.Query(ctx, t, backend.QueryRequest{Query: q.String(), Limit: limit}, func(r *backend.Row) error {
		id := string(r.Get("_stream_id"))
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}
