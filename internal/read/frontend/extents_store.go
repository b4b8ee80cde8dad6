package frontend

import (
	"math"

	"github.com/maypok86/otter/v2"
	"github.com/maypok86/otter/v2/stats"
)

// Weighted is a kept value that knows the bytes it holds.
type Weighted interface{ Bytes() int64 }

// ExtentStore keeps range queries' evaluated steps in this process (they
// are not plain answers, so a shared cache does not hold them): W-TinyLFU
// eviction bounded by an estimate of the bytes they hold.
type ExtentStore[V Weighted] struct {
	c       *otter.Cache[string, V]
	maxItem int64
	stats   *stats.Counter
}

// NewExtentStore returns a store holding at most maxBytes; one extent may
// take at most a tenth of it.
func NewExtentStore[V Weighted](maxBytes int64) *ExtentStore[V] {
	st := stats.NewCounter()
	c := otter.Must(&otter.Options[string, V]{
		MaximumWeight: uint64(maxBytes),
		Weigher: func(k string, x V) uint32 {
			return uint32(min(extentBytes(k, x), math.MaxUint32))
		},
		StatsRecorder: st,
	})
	return &ExtentStore[V]{c: c, maxItem: maxBytes / 10, stats: st}
}

func extentBytes[V Weighted](key string, x V) int64 {
	return int64(len(key)) + x.Bytes()
}

// Get returns the extent kept under key.
func (s *ExtentStore[V]) Get(key string) (V, bool) { return s.c.GetIfPresent(key) }

// Set keeps x under key unless it is too large.
func (s *ExtentStore[V]) Set(key string, x V) {
	if extentBytes(key, x) <= s.maxItem {
		s.c.Set(key, x)
	}
}

// Usage reports the bytes held, entries and evictions so far.
func (s *ExtentStore[V]) Usage() (bytes uint64, entries int, evictions uint64) {
	return s.c.WeightedSize(), s.c.EstimatedSize(), s.stats.Snapshot().Evictions
}
