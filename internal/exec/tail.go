package exec

import (
	"context"
	"math"
	"sort"
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

// Take returns the entries that arrived since the last call, as Loki's
// tail sends them (TailEntries).
func (tl *Tail) Take() []model.Stream {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	res := tl.col.result()
	next := newCollector(tl.col.req)
	next.last = tl.col.last // a duplicate of the last entry is still one
	tl.col = next
	return TailEntries(res.Streams)
}

// TailEntries lays entries out as Loki's tailer does: one stream object
// per entry, in time order (ties by stream labels).
func TailEntries(streams []model.Stream) []model.Stream {
	var out []model.Stream
	for _, s := range streams {
		for _, e := range s.Entries {
			out = append(out, model.Stream{Labels: s.Labels, Entries: []model.Entry{e}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Entries[0].TimestampNs, out[j].Entries[0].TimestampNs
		if a != b {
			return a < b
		}
		return out[i].Labels.String() < out[j].Labels.String()
	})
	return out
}
