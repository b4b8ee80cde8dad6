package patterns

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/write/push"
)

// Retain is how long Loki's pattern ingester keeps a pattern's counts
// (retain_for), and how far back its querier asks it.
const Retain = 3 * time.Hour

// pruneEvery is Loki's pattern ingester flush_check_period.
const pruneEvery = time.Minute

// Live mines pushes as they are acknowledged, as Loki's pattern ingester
// mines what its distributors send: per tenant and stream in arrival
// order, the eviction throttle on the wall clock. Every minute, chunks
// whose newest bucket is older than Retain are pruned, clusters left
// empty dropped and streams left without clusters forgotten. Bounded: at
// most maxStreams streams across tenants; a tenant whose new stream finds
// it full is mined from storage at query time from then on, and what the
// live miner held of it is dropped.
type Live[T comparable] struct {
	mu         sync.Mutex // tenants and pruned; each tenant has its own lock
	tenants    map[T]*liveTenant
	maxStreams int64
	streams    atomic.Int64
	now        func() time.Time
	pruned     time.Time
}

type liveTenant struct {
	mu   sync.Mutex
	m    *Miner
	full bool
}

// NewLive starts an empty live miner (now: time.Now when nil).
func NewLive[T comparable](maxStreams int, now func() time.Time) *Live[T] {
	if now == nil {
		now = time.Now
	}
	return &Live[T]{tenants: map[T]*liveTenant{}, maxStreams: int64(maxStreams), now: now, pruned: now()}
}

// Push trains on an acknowledged push. Pushes of different tenants train
// in parallel.
func (l *Live[T]) Push(t T, streams []lokidata.Stream) {
	l.maybePrune()
	tn := l.tenant(t, true)
	tn.mu.Lock()
	defer tn.mu.Unlock()
	if tn.full {
		return // mined from storage from now on
	}
	for _, s := range streams {
		key := s.LabelsKey()
		if _, known := tn.m.streams[key]; !known {
			if l.streams.Add(1) > l.maxStreams {
				l.streams.Add(-1)
				l.forgetLocked(tn)
				return
			}
		}
		for _, e := range s.Entries {
			level, _ := e.StructuredMetadata.Get(push.DetectedLevelLabel)
			tn.m.add(key, s.Labels, e.TimestampNs, e.Line, level)
		}
	}
}

func (l *Live[T]) tenant(t T, create bool) *liveTenant {
	l.mu.Lock()
	defer l.mu.Unlock()
	tn := l.tenants[t]
	if tn == nil && create {
		tn = &liveTenant{m: &Miner{streams: map[string]*stream{}, clock: l.wallClock}}
		l.tenants[t] = tn
	}
	return tn
}

func (l *Live[T]) wallClock(int64) int64 { return l.now().UnixNano() }

// Series answers for the tenant as Miner.Series does; ok is false when
// the tenant outgrew the bound (its patterns must be mined from storage).
func (l *Live[T]) Series(t T, match func(lokidata.Labels) bool, from, through, step int64) ([]Series, bool) {
	l.maybePrune()
	tn := l.tenant(t, false)
	if tn == nil {
		return nil, true
	}
	tn.mu.Lock()
	defer tn.mu.Unlock()
	if tn.full {
		return nil, false
	}
	return tn.m.Series(match, from, through, step), true
}

// Forget drops the tenant's mined patterns: rows were deleted from
// storage, whose patterns must go too. The tenant is mined from storage
// from then on.
func (l *Live[T]) Forget(t T) {
	tn := l.tenant(t, false)
	if tn == nil {
		return
	}
	tn.mu.Lock()
	defer tn.mu.Unlock()
	l.forgetLocked(tn)
}

// ForgetAll forgets every tenant the miner holds (Forget): pushes may
// have been acknowledged without it being told (package peers). A tenant
// met later is mined live only for ranges the stream index covers.
func (l *Live[T]) ForgetAll() {
	l.mu.Lock()
	tenants := make([]*liveTenant, 0, len(l.tenants))
	for _, tn := range l.tenants {
		tenants = append(tenants, tn)
	}
	l.mu.Unlock()
	for _, tn := range tenants {
		tn.mu.Lock()
		l.forgetLocked(tn)
		tn.mu.Unlock()
	}
}

// forgetLocked empties a tenant's miner, which answers nothing from then
// on: what it would hold is of no use, and its streams free room for
// other tenants.
func (l *Live[T]) forgetLocked(tn *liveTenant) {
	l.streams.Add(-int64(len(tn.m.streams)))
	tn.m = &Miner{streams: map[string]*stream{}, clock: l.wallClock}
	tn.full = true
}

// Streams is how many streams the live miner holds.
func (l *Live[T]) Streams() int { return int(l.streams.Load()) }

// maybePrune prunes every tenant when a minute has passed since the last
// time.
func (l *Live[T]) maybePrune() {
	now := l.now()
	l.mu.Lock()
	if now.Sub(l.pruned) < pruneEvery {
		l.mu.Unlock()
		return
	}
	l.pruned = now
	tenants := make([]*liveTenant, 0, len(l.tenants))
	for _, tn := range l.tenants {
		tenants = append(tenants, tn)
	}
	l.mu.Unlock()
	cutoff := now.Add(-Retain).UnixMilli()
	for _, tn := range tenants {
		tn.mu.Lock()
		l.streams.Add(-int64(tn.m.prune(cutoff)))
		tn.mu.Unlock()
	}
}

// prune drops counts older than cutoffMs and returns how many streams it
// forgot.
func (m *Miner) prune(cutoffMs int64) int {
	removed := 0
	for key, s := range m.streams {
		clusters := 0
		for _, d := range s.drains {
			d.prune(cutoffMs)
			clusters += d.clusters.order.Len()
		}
		if clusters == 0 {
			delete(m.streams, key)
			removed++
		}
	}
	return removed
}

// prune drops each cluster's chunks whose newest bucket is before
// cutoffMs, the clusters left without counts (not an eviction) and the
// tree branches left without clusters.
func (d *drain) prune(cutoffMs int64) {
	for _, c := range d.clusters.all() {
		c.samples.prune(cutoffMs)
		if len(c.samples.list) == 0 {
			d.clusters.remove(c.id)
		}
	}
	d.pruneTree()
}

// pruneTree removes children without live clusters below them; like
// Loki's, each cluster id it checks counts as a use. The kept branches
// are copied into a new tree, children in their order, so the old one's
// dropped nodes are freed whole.
func (d *drain) pruneTree() {
	kept := &tree{}
	d.keep(root, kept)
	d.tree = kept
}

// keep copies node n into dst with its children that have live clusters
// below them, and returns the copy and how many children and live
// cluster ids it holds (a child is kept when that is above 0).
func (d *drain) keep(n int32, dst *tree) (int32, int) {
	src := d.tree
	at := dst.newNode()
	for e := src.nodes[n].first; e != none; e = src.edges[e].sibling {
		before := dst.size()
		child, count := d.keep(src.edges[e].child, dst)
		if count == 0 {
			dst.truncate(before)
			continue
		}
		tok := src.token(e)
		dst.text = append(dst.text, tok...)
		dst.linkText(at, len(tok), child)
	}
	live := 0
	ids := src.clusterIDs(n)
	for _, id := range ids {
		if d.clusters.get(id) != nil {
			live++
		}
	}
	if ids != nil {
		dst.setClusterIDs(at, ids)
	}
	return at, int(dst.nodes[at].children) + live
}

func (c *chunks) prune(cutoffMs int64) {
	kept := c.list[:0]
	for _, ch := range c.list {
		if ch[len(ch)-1].Ts >= cutoffMs {
			kept = append(kept, ch)
		}
	}
	clear(c.list[len(kept):])
	c.list = kept
}
