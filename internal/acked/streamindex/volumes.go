package streamindex

import (
	"context"
	"iter"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
)

// Line is one acknowledged entry's time, line length and structured
// metadata (Meta: an index into its stream's metadata sets, 0 none,
// UnknownMeta one not kept): volumes over the ranges the index covers are
// summed from these, as Loki sums its ingesters' chunks in memory, and
// counts per series from them.
type Line struct {
	TS    int64
	Bytes int32
	Meta  uint32
}

// maxMetaSets bounds the distinct metadata sets a stream keeps; past it
// the stream's entries are marked unknownMeta.
const maxMetaSets = 64

// unknownMeta marks an entry whose metadata set was not kept.
const unknownMeta = math.MaxUint32

// addLine keeps the stream's lines in time order (late entries are
// inserted in place).
func (st *stream) addLine(ts, n int64, md lokidata.Labels) {
	l := Line{TS: ts, Bytes: int32(min(n, math.MaxInt32)), Meta: st.metaSet(md)}
	k := len(st.lines)
	if k == 0 || st.lines[k-1].TS <= ts {
		st.lines = append(st.lines, l)
		return
	}
	i := sort.Search(k, func(i int) bool { return st.lines[i].TS > ts })
	st.lines = slices.Insert(st.lines, i, l)
}

// metaSet is md's index in the stream's metadata sets, added when new
// (0 for none; unknownMeta past maxMetaSets).
func (st *stream) metaSet(md lokidata.Labels) uint32 {
	if len(md) == 0 {
		return 0
	}
	for i, set := range st.metaSets {
		if sameSet(set, md) {
			return uint32(i + 1)
		}
	}
	if len(st.metaSets) >= maxMetaSets {
		return unknownMeta
	}
	set := slices.Clone(md)
	set.Sort()
	st.metaSets = append(st.metaSets, set)
	return uint32(len(st.metaSets))
}

// sameSet reports that md (in any order, names distinct) holds the labels
// of sorted, without allocating: a push compares every entry's metadata.
func sameSet(sorted, md lokidata.Labels) bool {
	if len(sorted) != len(md) {
		return false
	}
	for _, l := range md {
		i, found := slices.BinarySearchFunc(sorted, l.Name, func(x lokidata.Label, name string) int { return strings.Compare(x.Name, name) })
		if !found || sorted[i].Value != l.Value {
			return false
		}
	}
	return true
}

// addMetadata notes the names of an entry's structured metadata.
func (st *stream) addMetadata(md lokidata.Labels) {
	for _, l := range md {
		if i, found := slices.BinarySearch(st.metadata, l.Name); !found {
			st.metadata = slices.Insert(st.metadata, i, l.Name)
		}
	}
}

// addLinesLocked records a pushed stream's line lengths; entries before
// the tenant's linesFrom are left out (ranges reaching there are not
// answered from memory anyway).
func (ix *Index) addLinesLocked(tn *tenantIndex, st *stream, entries []lokidata.Entry) {
	if ix.cfg.MaxLines <= 0 {
		return
	}
	for _, e := range entries {
		if e.TimestampNs >= tn.linesFrom {
			st.addLine(e.TimestampNs, int64(len(e.Line)), e.StructuredMetadata)
			st.addMetadata(e.StructuredMetadata)
			ix.lines++
		}
	}
	if ix.lines > ix.cfg.MaxLines {
		ix.trimLinesLocked()
	}
}

// trimLinesLocked drops the older half of the kept time span, repeatedly,
// until a quarter of the budget is free; ranges starting before the cut
// are then answered by the storage.
func (ix *Index) trimLinesLocked() {
	for ix.lines > ix.cfg.MaxLines*3/4 {
		oldest, newest := int64(math.MaxInt64), int64(math.MinInt64)
		for _, tn := range ix.tenants {
			for _, st := range tn.streams {
				if len(st.lines) > 0 {
					oldest, newest = min(oldest, st.lines[0].TS), max(newest, st.lines[len(st.lines)-1].TS)
				}
			}
		}
		cut := oldest + (newest-oldest)/2 + 1
		for _, tn := range ix.tenants {
			tn.linesFrom = max(tn.linesFrom, cut)
			for _, st := range tn.streams {
				i := sort.Search(len(st.lines), func(i int) bool { return st.lines[i].TS >= cut })
				if i > 0 {
					st.lines = slices.Clone(st.lines[i:])
					ix.lines -= i
				}
			}
		}
	}
}

// Lines calls fn with each of the tenant's streams matching ms and its
// entries (time, line bytes) in [start, end] (Unix ns, inclusive) when
// the index holds them all; ok is false when the storage must answer.
func (ix *Index) Lines(ctx context.Context, t tenant.ID, ms []*logql.Matcher, start, end int64, fn func(ls lokidata.Labels, lines iter.Seq2[int64, int64])) (ok bool, err error) {
	return ix.eachStream(ctx, t, ms, start, end, func(st *stream) { fn(st.labels, st.linesIn(start, end)) })
}

// Entries is a stream's acknowledged entries over a range, as Indexed
// hands them (valid during the call only).
type Entries struct {
	Labels lokidata.Labels
	// Metadata are the structured metadata names its entries carried
	// (sorted; kept since the tenant's lines were last trimmed).
	Metadata []string
	// Lines are the entries, in time order (the index's own: read only,
	// during the call); MetaSets the metadata sets their Meta point to
	// (Line.Meta i: MetaSets[i-1], sorted).
	Lines    []Line
	MetaSets []lokidata.Labels
}

// UnknownMeta is Line.Meta of an entry whose metadata set the index
// did not keep (a stream with more than 64 distinct sets).
const UnknownMeta = unknownMeta

// Indexed calls fn with each of the tenant's streams matching ms and its
// entries in [start, end] (Unix ns, inclusive) when the index holds them
// all; ok is false when the storage must answer.
func (ix *Index) Indexed(ctx context.Context, t tenant.ID, ms []*logql.Matcher, start, end int64, fn func(Entries)) (ok bool, err error) {
	return ix.eachStream(ctx, t, ms, start, end, func(st *stream) {
		fn(Entries{Labels: st.labels, Metadata: st.metadata, Lines: st.linesWithin(start, end), MetaSets: st.metaSets})
	})
}

// linesWithin is the stream's lines with times in [start, end] (a view).
func (st *stream) linesWithin(start, end int64) []Line {
	i := sort.Search(len(st.lines), func(i int) bool { return st.lines[i].TS >= start })
	j := sort.Search(len(st.lines), func(j int) bool { return st.lines[j].TS > end })
	return st.lines[i:max(i, j):max(i, j)]
}

// eachStream calls fn with each of the tenant's streams matching ms that
// may hold entries in [start, end], under the read lock, when the index
// holds every entry of the range.
func (ix *Index) eachStream(ctx context.Context, t tenant.ID, ms []*logql.Matcher, start, end int64, fn func(*stream)) (ok bool, err error) {
	if ix.cfg.MaxLines <= 0 {
		return false, nil
	}
	linesKept := func(tn *tenantIndex) bool { return start >= tn.linesFrom }
	return ix.eachKnown(ctx, t, ms, start, end, linesKept, fn)
}

// eachKnown calls fn with each of the tenant's streams matching ms whose
// entries span part of [start, end], under the read lock, when the index
// knows every stream of the range and kept (when set) holds for the
// tenant.
func (ix *Index) eachKnown(ctx context.Context, t tenant.ID, ms []*logql.Matcher, start, end int64, kept func(*tenantIndex) bool, fn func(*stream)) (ok bool, err error) {
	if ok, err := ix.KnowsFrom(ctx, t, start); !ok || err != nil {
		return false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tn := ix.tenants[t]
	if tn == nil {
		return true, nil
	}
	if tn.full || kept != nil && !kept(tn) {
		return false, nil
	}
	for _, st := range tn.candidates(ms) {
		if st.max < start || st.min > end || !logql.MatchLabels(ms, st.labels.Get) {
			continue
		}
		fn(st)
	}
	return true, nil
}

func (st *stream) linesIn(start, end int64) iter.Seq2[int64, int64] {
	return func(yield func(int64, int64) bool) {
		for _, l := range st.linesWithin(start, end) {
			if !yield(l.TS, int64(l.Bytes)) {
				return
			}
		}
	}
}

// LinesKept is how many entries' line lengths the index holds.
func (ix *Index) LinesKept() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.lines
}

// HeldAt tells, for each of times (any order), whether the stream with
// the label string key already holds an entry at that time, from the entries the
// index keeps; ok is false when it does not keep every entry of the
// stream over the times' span (rows stored before the index, trimmed or
// untracked ones): the storage must then be asked. A push's deduplication
// asks it first, so entries at new times need no read of the storage.
func (ix *Index) HeldAt(ctx context.Context, t tenant.ID, key string, times []int64) (held []bool, ok bool) {
	if ix.cfg.MaxLines <= 0 || len(times) == 0 {
		return nil, false
	}
	lo := slices.Min(times)
	if known, err := ix.KnowsFrom(ctx, t, lo); !known || err != nil {
		return nil, false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tn := ix.tenants[t]
	if tn == nil || tn.full || lo < tn.linesFrom {
		return nil, false
	}
	held = make([]bool, len(times))
	st := tn.streams[key]
	if st == nil {
		return held, true // no entry of the stream after the horizon
	}
	for i, ts := range times {
		j := sort.Search(len(st.lines), func(j int) bool { return st.lines[j].TS >= ts })
		held[i] = j < len(st.lines) && st.lines[j].TS == ts
	}
	return held, true
}
