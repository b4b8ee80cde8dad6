package scaleingest

import (
	"slices"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
)

// batch holds one push's lines grouped by stream: streams in order of
// first appearance, each stream's lines in time order, as agents batch.
type batch struct {
	gen   *scaledata.Gen
	text  []byte // the lines, one after another
	ents  []batchEntry
	rank  map[int]int // stream → order of first appearance
	bytes int64       // bytes of the lines
}

type batchEntry struct {
	stream, rank int
	timeNs       int64
	lo, hi       int // the line is text[lo:hi]
}

func newBatch(d *scaledata.Dataset) *batch { return &batch{gen: d.Gen(), rank: map[int]int{}} }

// fill generates lines [lo, hi) and groups them.
func (b *batch) fill(lo, hi int) {
	b.text, b.ents, b.bytes = b.text[:0], b.ents[:0], 0
	clear(b.rank)
	for i := lo; i < hi; i++ {
		start := len(b.text)
		var row scaledata.Row
		row, b.text = b.gen.Row(i, b.text)
		r, ok := b.rank[row.Stream]
		if !ok {
			r = len(b.rank)
			b.rank[row.Stream] = r
		}
		b.ents = append(b.ents, batchEntry{stream: row.Stream, rank: r, timeNs: row.TimeNs, lo: start, hi: len(b.text)})
		b.bytes += int64(len(b.text) - start)
	}
	slices.SortStableFunc(b.ents, func(x, y batchEntry) int { return x.rank - y.rank })
}

// line is an entry's text, valid until the next fill.
func (b *batch) line(e batchEntry) []byte { return b.text[e.lo:e.hi] }

// streams calls fn with each stream and its entries, in order.
func (b *batch) streams(fn func(stream int, ents []batchEntry)) {
	for i := 0; i < len(b.ents); {
		j := i + 1
		for j < len(b.ents) && b.ents[j].stream == b.ents[i].stream {
			j++
		}
		fn(b.ents[i].stream, b.ents[i:j])
		i = j
	}
}
