// Package logs answers a log query as one of Loki's queriers does: Walk
// reads VictoriaLogs in direction order, batch after batch, and a
// Collector runs each row through the local stages, de-duplicates, applies
// the interval and the limit, and groups the survivors into streams (the
// live tails use it too). StoredEntries reads one stream's entries.
package logs

import (
	"context"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/schema"
)

// Direction orders log entries.
type Direction int

// Directions, as Loki names them.
const (
	Backward Direction = iota
	Forward
)

// Request is one log query to run.
type Request struct {
	Query *plan.LogQuery
	// Start is inclusive and End exclusive, in Unix ns.
	Start, End int64
	Limit      int
	Direction  Direction
	// IntervalNs, when > 0, keeps only entries at least this far apart.
	IntervalNs int64
	// Categorize keeps structured metadata out of stream labels, as
	// Loki's categorize-labels encoding flag asks.
	Categorize bool
	// KeepParsed keeps each entry's parsed labels with it even when they
	// join the stream labels, as Loki's tailer does (its legacy tail
	// shows them).
	KeepParsed bool
	// Metadata, when set, is the only structured metadata read with each
	// line (the rest stays in storage, unread); nil reads all.
	Metadata []string
	// Index, when set, holds the entry times of the query's rows (vloki's
	// own, vloki the only writer): batches are cut where it tells.
	Index Index
	// Needles, when set, tells the only parts of a range whose rows may
	// hold a string (vloki the only writer): a query whose rows must hold
	// one (Query.Contains) walks those parts alone.
	Needles Needles
}

// Result is the answer to a log query.
type Result struct {
	Streams []lokidata.Stream
	Stats   Stats
}

// Stats are the figures a query's stats object reports.
type Stats struct {
	EntriesReturned int
	LinesProcessed  int
	BytesProcessed  int
}

// Walk is one querier's answer to a log query: the first Limit entries
// in direction order, grouped into streams. The walk it returns tells
// whether the limit cut through entries sharing a timestamp.
func Walk(ctx context.Context, c *backend.Client, t tenant.ID, req Request) (*Result, *Walked, error) {
	w := &walker{c: c, t: t, req: req, streams: logrow.NewStreamCache(req.Query.Foreign), col: NewCollector(req)}
	if err := w.run(ctx); err != nil {
		return nil, nil, err
	}
	return w.col.Result(), &Walked{w: w}, nil
}

// walker fetches rows in direction order, batch after batch, until the
// collector is full or the range is exhausted.
type walker struct {
	c       *backend.Client
	t       tenant.ID
	req     Request
	streams *logrow.StreamCache
	col     *Collector
	// buf is reused by every fetch: a batch is consumed before the next
	// one is asked for.
	buf []logrow.Row
	// probed: the rest of the range was asked for whole once (probeRest).
	probed bool
	// streamsFilter selects the only streams the part of the range being
	// walked may hold the query's rows in (nil: any; candidates).
	streamsFilter logsql.Filter
}

// firstWindow is the span of the first request of a walk.
const firstWindow = int64(time.Hour)

// maxBatch bounds the rows one request asks for, so a query holds at most
// that many fetched rows (and VictoriaLogs' top-k as many copies) however
// high its limit: a pipeline that keeps few rows walks the whole range
// with full batches.
const maxBatch = 2000

// run walks [Start, End) from the direction's starting end until the
// collector is full: by the stream index's batches where it can tell them
// (walkIndexed), else one window per request. A window that comes back whole
// makes the next one twice as wide, so a sparse range needs few requests.
// A window that fills the batch ends at the batch's last timestamp, and
// the next window spans what that batch covered: VictoriaLogs then scans
// about a batch of rows per request. Asking for the rest of a dense window
// instead made it scan, and copy into its top-k, the same rows again for
// every batch: time and garbage quadratic in the window's rows. Where a
// needle index tells the only parts of the range that can hold the query's
// lines, those parts alone are walked, in direction order.
func (w *walker) run(ctx context.Context) error {
	parts, err := w.candidates(ctx)
	if err != nil {
		return err
	}
	if w.req.Direction == Backward {
		slices.Reverse(parts)
	}
	for _, p := range parts {
		if w.col.full() {
			break
		}
		w.streamsFilter = p.StreamsFilter()
		if err := w.walkRange(ctx, p.Start, p.End); err != nil {
			return err
		}
	}
	return nil
}

// walkRange walks [lo, hi] (see run).
func (w *walker) walkRange(ctx context.Context, lo, hi int64) error {
	lo, hi, err := w.walkIndexed(ctx, lo, hi)
	if err != nil {
		return err
	}
	span, err := w.firstSpan(ctx, lo, hi)
	if err != nil {
		return err
	}
	seen := 0 // rows of the windows that were not full
	for lo <= hi && !w.col.full() {
		wlo, whi := lo, hi
		if whi-wlo >= span {
			if w.req.Direction == Backward {
				wlo = whi - span + 1
			} else {
				whi = wlo + span - 1
			}
		}
		edge, full, n, done, err := w.walkBatch(ctx, wlo, whi, walkRange{lo, hi, seen})
		if err != nil || done {
			return err
		}
		switch {
		case !full && w.req.Direction == Backward:
			hi = wlo - 1
		case !full:
			lo = whi + 1
		case w.req.Direction == Backward:
			span, hi = whi-edge+1, edge-1
		default:
			span, lo = edge-wlo+1, edge+1
		}
		if !full && span < math.MaxInt64/2 {
			span *= 2
		}
		if !full {
			seen += n
		}
		if !full && lo <= hi && !w.col.full() && w.worthProbing(seen, hi-lo+1) {
			w.probed = true
			if all, err := w.probeRest(ctx, lo, hi); err != nil || all {
				return err
			}
		}
	}
	return nil
}

// worthProbing tells whether to ask for the rest of the range whole
// (probeRest): once a walk, when the rows seen so far, spread over the
// rest at their density, would fit one batch. Each window costs a
// request or two that read the selected streams' block headers again
// (without a line filter, only where the stream index does not cut the
// batches: walkIndexed), so a sparse range is then three requests where
// doubling windows took one or two per window.
func (w *walker) worthProbing(seen int, rest int64) bool {
	return !w.probed && w.fits(0, seen, rest)
}

// fits tells whether have rows and the rows of the unread rest, at the
// density of seen rows over the range read so far, make at most a batch.
func (w *walker) fits(have, seen int, rest int64) bool {
	covered := w.req.End - w.req.Start - rest
	return covered > 0 && float64(have)+float64(seen)*float64(rest)/float64(covered) <= maxBatch
}

// probeRest asks for at most maxBatch+1 rows of the rest of the range
// [lo, hi], unsorted: when no more come back, they are all its rows and
// the walk is over. A search for a rare line (a trace id) then takes two
// requests instead of one per doubling window, each filtering its blocks
// again. When the rest holds more, VictoriaLogs stops at maxBatch+1 rows
// (its limit pipe ends the search), which are dropped: at most a batch's
// cost, once a walk.
func (w *walker) probeRest(ctx context.Context, lo, hi int64) (all bool, err error) {
	rows, err := w.fetchUnsorted(ctx, lo, hi, maxBatch+1)
	if err != nil || len(rows) > maxBatch {
		return false, err
	}
	w.sortRows(rows)
	w.col.addAll(rows)
	return true, nil
}

// walkRange is what is left of a walk's range when a window is asked for:
// [lo, hi], window included, and the rows the windows before it held.
type walkRange struct {
	lo, hi int64
	seen   int
}

// walkBatch collects the first batch of the window [lo, hi]: the rows up
// to the timestamp of its batchSize-th row (edge), all rows at edge
// included, as they may continue past the batch; rowsRead is how many
// rows it fetched. It first asks for that edge alone, over _time only,
// then for the rows up to it without a sort: VictoriaLogs' top-k would
// copy every field of every row it passes. When the count that first
// request brings says the whole rest of the range fits a batch, the rest
// is asked for whole instead of the window (probeRest); done then says
// the walk is over.
//
// When VictoriaLogs filters lines, asking twice would match every line
// twice, and few rows reach the top-k: one sorted request is cheaper.
func (w *walker) walkBatch(ctx context.Context, lo, hi int64, rest walkRange) (edge int64, full bool, rowsRead int, done bool, err error) {
	if w.req.Query.FiltersLines {
		edge, full, rowsRead, err = w.walkBatchSorted(ctx, lo, hi)
		return edge, full, rowsRead, false, err
	}
	edge, full, count, err := w.batchEdge(ctx, lo, hi, w.batchSize())
	if err != nil {
		return 0, false, 0, false, err
	}
	if !full && w.restFits(rest, count, hi-lo+1) {
		w.probed = true
		if done, err = w.probeRest(ctx, rest.lo, rest.hi); err != nil || done {
			return 0, false, 0, done, err
		}
	}
	n, err := w.collectTo(ctx, lo, hi, edge, full)
	if err != nil {
		return 0, false, 0, false, err
	}
	return edge, full, n, false, nil
}

// restFits tells whether, once a walk, the window's count of rows and the
// rows seen before it, spread over the rest of the range at their
// density, say the window and the rest fit one batch together. A sparse
// range is then two requests (the count, the rest) where asking for the
// window's rows first took three.
func (w *walker) restFits(rest walkRange, count int, window int64) bool {
	return !w.probed && w.fits(count, rest.seen+count, rest.hi-rest.lo+1-window)
}

// collectTo collects the rows of [lo, hi] up to edge in direction order
// (all of them when the batch is not full), rows at edge included, and
// returns how many it fetched.
func (w *walker) collectTo(ctx context.Context, lo, hi, edge int64, full bool) (int, error) {
	if full && w.req.Direction == Backward {
		lo = edge
	} else if full {
		hi = edge
	}
	rows, err := w.fetch(ctx, lo, hi, 0)
	if err != nil {
		return 0, err
	}
	w.sortRows(rows)
	w.col.addAll(rows)
	return len(rows), nil
}

// walkBatchSorted is walkBatch in one sorted request, and one more for
// the rows at the edge when the batch comes back full.
func (w *walker) walkBatchSorted(ctx context.Context, lo, hi int64) (edge int64, full bool, rowsRead int, err error) {
	batchSize := w.batchSize()
	rows, err := w.fetch(ctx, lo, hi, batchSize)
	if err != nil {
		return 0, false, 0, err
	}
	w.sortRows(rows)
	if len(rows) < batchSize {
		w.col.addAll(rows)
		return 0, false, len(rows), nil
	}
	edge = rows[len(rows)-1].TimestampNs
	n := len(rows)
	for n > 0 && rows[n-1].TimestampNs == edge {
		n--
	}
	w.col.addAll(rows[:n])
	atEdge, err := w.fetch(ctx, edge, edge, 0)
	if err != nil {
		return 0, false, 0, err
	}
	w.sortRows(atEdge)
	w.col.addAll(atEdge)
	return edge, true, n + len(atEdge), nil
}

// batchEdge returns the timestamp of the n-th row of [lo, hi] in direction
// order; full is false when the window holds fewer rows, count then
// being how many it holds.
func (w *walker) batchEdge(ctx context.Context, lo, hi int64, n int) (edge int64, full bool, count int, err error) {
	q := logsql.Query{
		Filter: w.filter(lo, hi),
		Pipes:  []logsql.Pipe{logsql.Fields{"_time"}, logsql.SortByTime{Desc: w.req.Direction == Backward, Limit: n}, logsql.TimeEdge{Desc: w.req.Direction == Backward}},
	}
	err = w.c.Query(ctx, w.t, backend.QueryRequest{Query: q.String()}, func(r *backend.Row) error {
		c, err := logrow.ParseCount(r.Get("n"))
		if err != nil {
			return err
		}
		if count = int(c); c < int64(n) {
			return nil
		}
		edge, err = logrow.ParseTime(r.Get("t"))
		full = err == nil
		return err
	})
	return edge, full, count, err
}

// batchSize is how many rows the next request asks for: what the limit
// still needs, or, when local stages drop rows (label filters after a
// parser, pattern filters), a full batch: asking for exactly what is
// missing would then take a round trip for every few entries kept.
func (w *walker) batchSize() int {
	if w.req.Query.FiltersLocally() {
		return maxBatch
	}
	return min(w.col.remaining(), maxBatch)
}

// fetch returns the rows in [lo, hi] that pass the pushed-down filter, at
// most limit of them (0: all) from the direction's starting end. The rows
// live in w.buf, valid until the next fetch.
func (w *walker) fetch(ctx context.Context, lo, hi int64, limit int) ([]logrow.Row, error) {
	q := w.rowsQuery(lo, hi)
	if limit > 0 {
		q.Pipes = append(q.Pipes, logsql.SortByTime{Desc: w.req.Direction == Backward, Limit: limit})
	}
	return w.read(ctx, q)
}

// fetchUnsorted returns at most limit rows of [lo, hi] that pass the
// pushed-down filter, in no order.
func (w *walker) fetchUnsorted(ctx context.Context, lo, hi int64, limit int) ([]logrow.Row, error) {
	q := w.rowsQuery(lo, hi)
	q.Pipes = append(q.Pipes, logsql.Limit(limit))
	return w.read(ctx, q)
}

// rowsQuery asks for the rows of [lo, hi] that pass the pushed-down
// filter, with the fields the collector reads.
func (w *walker) rowsQuery(lo, hi int64) logsql.Query {
	q := logsql.Query{
		Filter: w.filter(lo, hi),
		Pipes:  []logsql.Pipe{logsql.Delete{"_stream_id"}},
	}
	if w.req.Metadata != nil {
		q.Pipes[0] = logsql.Fields(append([]string{"_time", "_stream", "_msg", schema.EmptyLineField, schema.SeqField}, w.req.Metadata...))
	}
	return q
}

// filter selects the rows of [lo, hi] that pass the pushed-down filter,
// in the streams of the part being walked.
func (w *walker) filter(lo, hi int64) logsql.Filter {
	if w.streamsFilter != nil {
		return logsql.And{logsql.TimeRange{Start: lo, End: hi}, w.streamsFilter, w.req.Query.Pushdown}
	}
	return logsql.And{logsql.TimeRange{Start: lo, End: hi}, w.req.Query.Pushdown}
}

// read runs q and reads its rows into w.buf, valid until the next read.
func (w *walker) read(ctx context.Context, q logsql.Query) ([]logrow.Row, error) {
	rows := w.buf[:0]
	err := w.c.Query(ctx, w.t, backend.QueryRequest{Query: q.String()}, func(r *backend.Row) error {
		row, err := logrow.Read(r, w.streams)
		if err != nil {
			return err
		}
		rows = append(rows, row)
		return nil
	})
	w.buf = rows
	return rows, err
}

// sortRows puts rows in direction order. Entries of different streams that
// share a timestamp follow Loki's merge order: ascending stream fingerprint
// in both directions. Within a stream, entries sharing a timestamp come in
// arrival order (schema.SeqField), reversed when reading backward, as
// Loki's head blocks keep them. A row without an arrival number was
// written first (or before vloki numbered entries, or by another agent);
// such rows order by line, which also puts duplicates side by side (a
// repeated entry never gets a number: vloki drops it when it can tell,
// and when it cannot, it numbers nothing across pushes).
func (w *walker) sortRows(rows []logrow.Row) {
	backward := w.req.Direction == Backward
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := &rows[i], &rows[j]
		if a.TimestampNs != b.TimestampNs {
			return (a.TimestampNs > b.TimestampNs) == backward
		}
		if a.Hash != b.Hash {
			return a.Hash < b.Hash
		}
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		if a.Seq != b.Seq {
			return (a.Seq > b.Seq) == backward
		}
		return a.Line < b.Line
	})
}
