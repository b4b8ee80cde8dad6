package exec

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/logsql"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/plan"
)

// Tail is the live part of a tail: rows VictoriaLogs delivers run through
// the log query's stages, as a log query's rows do, and wait in streams
// until Take.
type Tail struct {
	q       *plan.LogQuery
	since   int64
	streams *streamCache

	mu  sync.Mutex
	col *collector
}

// NewTail tails q; rows older than since (Unix ns) were answered by the
// history and are skipped.
func NewTail(q *plan.LogQuery, categorize bool, since int64) *Tail {
	req := LogRequest{Query: q, Limit: math.MaxInt, Direction: Forward, Categorize: categorize}
	return &Tail{q: q, since: since, streams: newStreamCache(q.Foreign), col: newCollector(req)}
}

// Run tails VictoriaLogs until ctx ends; delay holds rows back for late
// arrivals (Loki's delay_for).
func (tl *Tail) Run(ctx context.Context, c *backend.Client, t backend.Tenant, delay time.Duration) error {
	req := backend.TailRequest{Query: logsql.Query{Filter: tl.q.Pushdown}.String(), Delay: delay}
	return c.Tail(ctx, t, req, func(r *backend.Row) error {
		row, err := toLogRow(r, tl.streams)
		if err != nil || row.ts < tl.since {
			return err
		}
		tl.mu.Lock()
		defer tl.mu.Unlock()
		tl.col.add(&row)
		return nil
	})
}

// Take returns the entries that arrived since the last call, by stream.
func (tl *Tail) Take() []model.Stream {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	res := tl.col.result()
	next := newCollector(tl.col.req)
	next.last = tl.col.last // a duplicate of the last entry is still one
	tl.col = next
	return res.Streams
}

// Ascending puts a backward log answer's entries in time order, as Loki's
// tail sends its history.
func Ascending(streams []model.Stream) []model.Stream {
	for _, s := range streams {
		for i, j := 0, len(s.Entries)-1; i < j; i, j = i+1, j-1 {
			s.Entries[i], s.Entries[j] = s.Entries[j], s.Entries[i]
		}
	}
	return streams
}
