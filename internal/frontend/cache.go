package frontend

import (
	"context"
	"math"

	"github.com/maypok86/otter/v2"
	"github.com/maypok86/otter/v2/stats"
)

// Cache stores answers by key. Implementations bound themselves by bytes.
type Cache interface {
	Get(ctx context.Context, key string) (*answer, bool)
	// Set stores a; false when a is too large to keep.
	Set(ctx context.Context, key string, a *answer) bool
}

// Memory is the in-process cache: W-TinyLFU eviction (otter) bounded by
// the bytes of keys and answers.
type Memory struct {
	c       *otter.Cache[string, *answer]
	maxItem int
	stats   *stats.Counter
}

// NewMemory returns a cache holding at most maxBytes; one answer may take
// at most a tenth of it.
func NewMemory(maxBytes int64) *Memory {
	st := stats.NewCounter()
	c := otter.Must(&otter.Options[string, *answer]{
		MaximumWeight: uint64(maxBytes),
		Weigher: func(k string, a *answer) uint32 {
			return uint32(min(len(k)+a.size(), math.MaxUint32))
		},
		StatsRecorder: st,
	})
	return &Memory{c: c, maxItem: int(maxBytes / 10), stats: st}
}

// Get returns a cached answer.
func (m *Memory) Get(_ context.Context, key string) (*answer, bool) {
	return m.c.GetIfPresent(key)
}

// Set stores an answer unless it is too large.
func (m *Memory) Set(_ context.Context, key string, a *answer) bool {
	if len(key)+a.size() > m.maxItem {
		return false
	}
	m.c.Set(key, a)
	return true
}

// Usage reports the bytes held, entries and evictions so far.
func (m *Memory) Usage() (bytes uint64, entries int, evictions uint64) {
	return m.c.WeightedSize(), m.c.EstimatedSize(), m.stats.Snapshot().Evictions
}
