package frontend

import (
	"context"
	"math"
	"strconv"

	"github.com/maypok86/otter/v2"
	"github.com/maypok86/otter/v2/stats"
	"github.com/vloki/vloki/internal/edge/tenant"
)

// Cache stores answers by key. Implementations bound themselves by bytes.
// A cache shared by several vloki replicas shares the tenants' generations
// too, so a late push through one replica invalidates for all.
type Cache interface {
	Get(ctx context.Context, key string) (*answer, bool)
	// Set stores a; false when a is too large (or could not be stored).
	Set(ctx context.Context, key string, a *answer) bool
	// Generation is the tenant's current cache generation; false when it
	// cannot be read (the answer is then neither read nor stored).
	Generation(ctx context.Context, tenant string) (uint64, bool)
	// Invalidate moves the tenant to a new generation.
	Invalidate(ctx context.Context, tenant string)
	// InvalidateAll moves every tenant, known or not, to a new generation
	// of this process's own: pushes may have been acknowledged without it
	// being told (package peers). Shared generations need no move: the
	// replica that acknowledged a push moved them.
	InvalidateAll()
}

// tenantKey names a tenant in a cache.
func tenantKey(t tenant.ID) string {
	return strconv.FormatUint(uint64(t.AccountID), 10) + ":" + strconv.FormatUint(uint64(t.ProjectID), 10)
}

// Memory is the in-process cache: W-TinyLFU eviction (otter) bounded by
// the bytes of keys and answers.
type Memory struct {
	c       *otter.Cache[string, *answer]
	maxItem int
	stats   *stats.Counter

	generations localGenerations
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

// Generation is the tenant's generation in this process.
func (m *Memory) Generation(_ context.Context, tenant string) (uint64, bool) {
	return m.generations.get(tenant), true
}

// InvalidateAll moves every tenant to a new generation.
func (m *Memory) InvalidateAll() { m.generations.bumpAll() }

// Invalidate moves the tenant to a new generation; its old answers age out.
func (m *Memory) Invalidate(_ context.Context, tenant string) { m.generations.bump(tenant) }

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
