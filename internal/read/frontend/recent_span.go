package frontend

import (
	"math/bits"
	"slices"
	"sort"
	"unsafe"

	"github.com/vloki/vloki/internal/lokidata"
)

// recentSpan is a query's entries with timestamps in [lo, hi), newest
// first: every entry of the query in that interval. The entries are held
// in chunks, newest first, each read-only once made: a refresh adds its
// newer entries as a chunk in front of the span's, and a merge joins
// chunk lists, so neither copies the entries kept (a refreshing panel's
// span grows to megabytes). Past maxChunks the chunks are copied into one.
type recentSpan struct {
	lo, hi int64
	seq    uint64
	chunks []recentChunk
}

// recentChunk is a run of entries, newest first, and their size.
type recentChunk struct {
	entries []recentEntry
	bytes   int64
}

// maxChunks bounds a span's chunks: finding an entry stays cheap, and
// copying them into one happens once every maxChunks refreshes.
const maxChunks = 16

func newSpan(lo, hi int64, entries []recentEntry) *recentSpan {
	s := &recentSpan{lo: lo, hi: hi}
	if len(entries) > 0 {
		s.chunks = []recentChunk{newChunk(entries)}
	}
	return s
}

func newChunk(entries []recentEntry) recentChunk {
	n := int64(0)
	streams := map[*byte]struct{}{}
	for _, r := range entries {
		n += entryBytes(r.e)
		// A stream's key and labels are shared by its entries; with
		// parsed labels most entries are a stream of their own.
		if _, ok := streams[unsafe.StringData(r.key)]; !ok {
			streams[unsafe.StringData(r.key)] = struct{}{}
			n += stringBytes(r.key) + streamLabelsBytes(r.labels, r.e)
		}
	}
	return recentChunk{entries: entries, bytes: n}
}

// recentEntrySize is a recentEntry's own bytes: key and labels headers,
// and an Entry.
const recentEntrySize = int64(unsafe.Sizeof(recentEntry{}))

// entryBytes is what a kept entry holds, its line and labels included.
func entryBytes(e lokidata.Entry) int64 {
	return recentEntrySize + stringBytes(e.Line) + labelsBytes(e.StructuredMetadata) + labelsBytes(e.Parsed)
}

// streamLabelsBytes counts a stream's labels; the strings of those merged
// in from its first entry's metadata and parsed labels are that entry's
// (logrow.MergeLabels copies the headers).
func streamLabelsBytes(ls lokidata.Labels, first lokidata.Entry) int64 {
	n := allocBytes(cap(ls) * labelSize)
	for _, l := range ls {
		if v, ok := first.Parsed.Get(l.Name); ok && v == l.Value {
			continue
		}
		if v, ok := first.StructuredMetadata.Get(l.Name); ok && v == l.Value {
			continue
		}
		n += stringBytes(l.Name) + stringBytes(l.Value)
	}
	return n
}

const labelSize = int(unsafe.Sizeof(lokidata.Label{}))

// labelsBytes counts a label slice's array (its capacity: parsers append)
// and each label's strings (names too: parsers allocate them per entry).
func labelsBytes(ls lokidata.Labels) int64 {
	n := allocBytes(cap(ls) * labelSize)
	for _, l := range ls {
		n += stringBytes(l.Name) + stringBytes(l.Value)
	}
	return n
}

func stringBytes(s string) int64 { return allocBytes(len(s)) }

// allocBytes is n bytes as the allocator rounds them: to its size
// classes, which are spaced an eighth of their power of two apart (8 and
// 16 bytes below 128).
func allocBytes(n int) int64 {
	switch {
	case n == 0:
		return 0
	case n <= 128:
		return int64(n+15) &^ 15
	}
	step := 1 << (bits.Len(uint(n-1)) - 3)
	return int64((n + step - 1) &^ (step - 1))
}

func (s *recentSpan) size() int64 {
	n := int64(64)
	for _, c := range s.chunks {
		n += 24 + c.bytes
	}
	return n
}

// cut returns the entries with timestamps in [lo, hi) as a new span
// sharing s's whole chunks (chunks cut through are copied).
func (s *recentSpan) cut(lo, hi int64) *recentSpan {
	lo, hi = max(lo, s.lo), min(hi, s.hi)
	if hi <= lo {
		return nil
	}
	out := &recentSpan{lo: lo, hi: hi, seq: s.seq}
	for _, c := range s.chunks {
		a, b := c.within(lo, hi)
		switch {
		case a == b:
		case a == 0 && b == len(c.entries):
			out.chunks = append(out.chunks, c)
		default:
			// A copy: the chunk's array would hold the entries cut off.
			out.chunks = append(out.chunks, newChunk(slices.Clone(c.entries[a:b])))
		}
	}
	return out
}

// within is the chunk's index range of timestamps in [lo, hi).
func (c recentChunk) within(lo, hi int64) (int, int) {
	// Newest first: entries at hi or later come first.
	a := sort.Search(len(c.entries), func(i int) bool { return c.entries[i].e.TimestampNs < hi })
	b := sort.Search(len(c.entries), func(i int) bool { return c.entries[i].e.TimestampNs < lo })
	return a, max(a, b)
}

// count is how many of the span's entries have timestamps in [lo, hi).
func (s *recentSpan) count(lo, hi int64) int {
	n := 0
	for _, c := range s.chunks {
		a, b := c.within(lo, hi)
		n += b - a
	}
	return n
}

// first is the span's newest n entries (fewer when it holds fewer).
func (s *recentSpan) first(n int) []recentEntry {
	total := 0
	for _, c := range s.chunks {
		total += len(c.entries)
	}
	out := make([]recentEntry, 0, min(n, total)) // compact keeps it: no spare capacity
	for _, c := range s.chunks {
		if len(out) >= n {
			break
		}
		out = append(out, c.entries[:min(len(c.entries), n-len(out))]...)
	}
	return out
}

// newest is the span's newest n entries with timestamps in [lo, hi),
// newest first: a view for one answer, shared with the span, not copied
// or weighed as cut's stored spans are.
func (s *recentSpan) newest(lo, hi int64, n int) []recentEntry {
	lo, hi = max(lo, s.lo), min(hi, s.hi)
	if hi <= lo || n <= 0 {
		return nil
	}
	out := make([]recentEntry, 0, min(n, s.count(lo, hi)))
	for _, c := range s.chunks {
		if len(out) >= n {
			break
		}
		a, b := c.within(lo, hi)
		out = append(out, c.entries[a:min(b, a+n-len(out))]...)
	}
	return out
}

// all is every entry of the span, newest first.
func (s *recentSpan) all() []recentEntry {
	return s.first(int(^uint(0) >> 1))
}

// withNewer is the span extended to hi by newer, every entry of
// [s.hi, hi), newest first: s's entries are shared, not copied.
func (s *recentSpan) withNewer(newer []recentEntry, hi int64) *recentSpan {
	out := &recentSpan{lo: s.lo, hi: hi, seq: s.seq}
	if len(newer) > 0 {
		out.chunks = append(out.chunks, newChunk(newer))
	}
	out.chunks = append(out.chunks, s.chunks...)
	out.compact()
	return out
}

// compact copies the chunks into one past maxChunks.
func (s *recentSpan) compact() {
	if len(s.chunks) <= maxChunks {
		return
	}
	all, n := s.all(), int64(0)
	for _, c := range s.chunks {
		n += c.bytes
	}
	s.chunks = []recentChunk{{entries: all, bytes: n}}
}
