// Package samples keeps what range aggregations extracted from frozen data
// (data no later push or write can change) in a form that does not depend
// on a request's grid: per series, its samples (timestamps and values) in
// the rows path's order over a covered interval of timestamps. A later
// evaluation of the same input, at any start, end, step, range or offset,
// takes the samples of the part of its span the entry covers and reads
// only the rest from storage (read/metric).
package samples

import (
	"sort"

	"github.com/vloki/vloki/internal/lokidata"
)

// Series is one label set's samples in time order, as the rows path
// orders them (timestamp, then stream fingerprint, then arrival).
type Series struct {
	Labels lokidata.Labels
	TS     []int64 // ns
	Vals   []float64
}

// Entry is an input's samples with timestamps in [Lo, Hi), read after
// the tenant's acknowledged push Seq (vloki the sole writer; 0 otherwise).
// An entry is never modified once stored.
type Entry struct {
	Lo, Hi int64
	Seq    uint64
	Series []Series
}

// Per-item sizes of Bytes: a sample is a timestamp and a value; a series
// its struct and slice headers; a label two string headers.
const (
	sampleBytes = 16
	seriesBytes = 96
	labelBytes  = 32
	entryBytes  = 64
)

// Bytes estimates the memory e holds.
func (e *Entry) Bytes() int64 {
	n := int64(entryBytes)
	for _, s := range e.Series {
		n += seriesBytes + int64(len(s.TS))*sampleBytes
		for _, l := range s.Labels {
			n += labelBytes + int64(len(l.Name)+len(l.Value))
		}
	}
	return n
}

// Samples counts e's samples.
func (e *Entry) Samples() int {
	n := 0
	for _, s := range e.Series {
		n += len(s.TS)
	}
	return n
}

// Part returns the samples of s with timestamps in [lo, hi), sharing s's
// arrays (capped: an append never writes into them).
func (s Series) Part(lo, hi int64) (ts []int64, vals []float64) {
	a := sort.Search(len(s.TS), func(i int) bool { return s.TS[i] >= lo })
	b := sort.Search(len(s.TS), func(i int) bool { return s.TS[i] >= hi })
	return s.TS[a:b:b], s.Vals[a:b:b]
}

// Cut returns e's samples with timestamps in [lo, hi) as a new entry
// sharing e's arrays; series left without samples are dropped.
func (e *Entry) Cut(lo, hi int64) *Entry {
	lo, hi = max(lo, e.Lo), min(hi, e.Hi)
	out := &Entry{Lo: lo, Hi: max(lo, hi), Seq: e.Seq}
	for _, s := range e.Series {
		ts, vals := s.Part(lo, hi)
		if len(ts) > 0 {
			out.Series = append(out.Series, Series{Labels: s.Labels, TS: ts, Vals: vals})
		}
	}
	return out
}
