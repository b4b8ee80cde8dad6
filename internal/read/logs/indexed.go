package logs

import (
	"context"

	"github.com/vloki/vloki/internal/acked/streamindex"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
)

// Index is the stream index of acknowledged pushes (vloki the only
// writer): every entry's time per stream. Indexed reports ok false when
// it does not hold every entry of [start, end] (Unix ns, inclusive).
type Index interface {
	Indexed(ctx context.Context, t tenant.ID, ms []*logql.Matcher, start, end int64, fn func(streamindex.Entries)) (ok bool, err error)
}

// walkIndexed walks [lo, hi] in batches whose edges the stream index
// tells, one storage request a batch: the rows the pushdown selects are
// among the selected streams' entries, so the batchSize-th entry's time
// bounds a batch as the storage's own count would, without asking it
// (batchEdge) or guessing a window. A sparse selection over a long range
// is then one request where the windows took several, each reading the
// stream's block headers again. It returns the part of [lo, hi] left for
// the windowed walk: all of it when there is no index or the pushdown
// filters lines (walkBatchSorted asks for those in one request anyway),
// or from where the index stopped holding every entry.
func (w *walker) walkIndexed(ctx context.Context, lo, hi int64) (int64, int64, error) {
	if w.req.Index == nil || w.req.Query.FiltersLines {
		return lo, hi, nil
	}
	for lo <= hi && !w.col.full() {
		edge, full, ok, err := w.indexEdge(ctx, lo, hi, w.batchSize())
		if err != nil || !ok {
			return lo, hi, err
		}
		if _, err := w.collectTo(ctx, lo, hi, edge, full); err != nil {
			return lo, hi, err
		}
		switch {
		case !full:
			return hi + 1, hi, nil
		case w.req.Direction == Backward:
			hi = edge - 1
		default:
			lo = edge + 1
		}
	}
	return lo, hi, nil
}

// firstSpan is the span of the walk's first window over [lo, hi]: an
// hour, or, for a line filter with the stream index, the span holding a
// batch of the selected streams' entries when longer (all of [lo, hi]
// when it holds fewer). The filter then reads about a batch of rows at
// most, where a sparse stream's hour held a few and the windows doubled
// once a request. (Without a line filter, walkIndexed cut the batches.)
func (w *walker) firstSpan(ctx context.Context, lo, hi int64) (int64, error) {
	if w.req.Index == nil || !w.req.Query.FiltersLines || lo > hi {
		return firstWindow, nil
	}
	edge, full, ok, err := w.indexEdge(ctx, lo, hi, maxBatch)
	switch {
	case err != nil || !ok:
		return firstWindow, err
	case !full:
		return hi - lo + 1, nil
	case w.req.Direction == Backward:
		return max(firstWindow, hi-edge+1), nil
	default:
		return max(firstWindow, edge-lo+1), nil
	}
}

// indexEdge is batchEdge from the stream index: the time of the n-th
// entry of [lo, hi] in direction order among the selected streams' (ok
// false when the index does not hold them all).
func (w *walker) indexEdge(ctx context.Context, lo, hi int64, n int) (edge int64, full, ok bool, err error) {
	top := newTimeTop(n, w.req.Direction == Backward)
	ok, err = w.req.Index.Indexed(ctx, w.t, w.req.Query.Selector, lo, hi, func(e streamindex.Entries) {
		top.addLines(e.Lines)
	})
	if !ok || err != nil {
		return 0, false, false, err
	}
	edge, full = top.edge()
	return edge, full, true, nil
}

// indexCountAt is how many entries of the selected streams the stream
// index holds at ts (ok false when it does not hold them all): at least
// as many as the storage rows the pushdown selects there.
func (w *walker) indexCountAt(ctx context.Context, ts int64) (n int, ok bool, err error) {
	if w.req.Index == nil {
		return 0, false, nil
	}
	ok, err = w.req.Index.Indexed(ctx, w.t, w.req.Query.Selector, ts, ts, func(e streamindex.Entries) {
		n += len(e.Lines)
	})
	return n, ok && err == nil, err
}

// timeTop keeps the n first entry times in direction order: the n latest
// reading backward, the n earliest forward. Its keys are the times,
// negated forward, so both keep the n largest keys in a min-heap whose
// root is the edge so far.
type timeTop struct {
	n        int
	backward bool
	keys     minHeap
}

func newTimeTop(n int, backward bool) *timeTop {
	return &timeTop{n: n, backward: backward, keys: make(minHeap, 0, min(n, 4096))}
}

func (t *timeTop) key(ts int64) int64 {
	if t.backward {
		return ts
	}
	return -ts
}

// addLines takes a stream's lines (in time order), from the direction's
// starting end, until one cannot enter the top: the rest cannot either.
func (t *timeTop) addLines(lines []streamindex.Line) {
	for i := range lines {
		l := lines[i]
		if t.backward {
			l = lines[len(lines)-1-i]
		}
		if !t.add(t.key(l.TS)) {
			return
		}
	}
}

func (t *timeTop) add(k int64) bool {
	switch {
	case t.n <= 0:
		return false
	case len(t.keys) < t.n:
		t.keys = append(t.keys, k)
		t.keys.up(len(t.keys) - 1)
	case k > t.keys[0]:
		t.keys[0] = k
		t.keys.down(0)
	default:
		return false
	}
	return true
}

// edge is the n-th time in direction order; full is false when fewer
// than n entries were added.
func (t *timeTop) edge() (int64, bool) {
	if t.n <= 0 || len(t.keys) < t.n {
		return 0, false
	}
	return t.key(t.keys[0]), true
}

// minHeap is a binary min-heap of keys (container/heap would box each
// key it pushes).
type minHeap []int64

func (h minHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (h minHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if h[i] <= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
