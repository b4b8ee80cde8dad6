package frontend

import "sync"

// localGenerations are the tenants' cache generations kept in this
// process (the memory cache's, or the frontend's own without a cache):
// each tenant counts its invalidations, and an epoch moves every tenant,
// known or not, on at once.
type localGenerations struct {
	mu     sync.Mutex
	counts map[string]uint64
	epoch  uint64
}

func (g *localGenerations) get(tenant string) uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.epoch<<32 + g.counts[tenant]
}

func (g *localGenerations) bump(tenant string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.counts == nil {
		g.counts = map[string]uint64{}
	}
	g.counts[tenant]++
}

func (g *localGenerations) bumpAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.epoch++
}
