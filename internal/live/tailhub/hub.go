// Package tailhub hands the entries vloki has just written to the live
// tails open on this process, the moment VictoriaLogs acknowledged them:
// no polling, no wait for VictoriaLogs to make them searchable.
//
// A short replay ring keeps the last few seconds of pushes, so a tail that
// opens while an acknowledged push is not yet searchable in VictoriaLogs
// (its history query cannot see it) still receives it.
package tailhub

import (
	"sync"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// Batch is one acknowledged push of one tenant: streams as vloki stored
// them (labels after Loki's enrichment, entries with their metadata).
type Batch struct {
	Tenant  tenant.ID
	Streams []lokidata.Stream
	at      time.Time
	bytes   int
}

// Bounds of the replay ring and of each subscriber's queue.
const (
	// ReplayAge is how long a push stays replayable: longer than
	// VictoriaLogs takes to make an acknowledged row searchable (its
	// in-memory rows are flushed every second).
	ReplayAge = 3 * time.Second
	// ReplayBytes caps the ring's line and label bytes.
	ReplayBytes = 16 << 20
	// QueueBatches is how many pushes a subscriber may fall behind
	// before it is dropped (its tail ends with an error, never silently
	// short of entries).
	QueueBatches = 4096
)

// Hub fans pushes out to subscribers. The zero value is not usable: New.
type Hub struct {
	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	ring   []*Batch
	bytes  int
	now    func() time.Time
	maxAge time.Duration
	maxB   int
	// sweeper empties the ring once its pushes have aged out, so the last
	// burst of pushes is not held until the next push comes.
	sweeper *time.Timer
}

// New returns an empty hub.
func New() *Hub {
	return &Hub{subs: map[*Subscription]struct{}{}, now: time.Now, maxAge: ReplayAge, maxB: ReplayBytes}
}

// Subscription receives the pushes of one tenant.
type Subscription struct {
	hub    *Hub
	tenant tenant.ID
	c      chan *Batch
	// overflow is closed when the subscriber fell behind and was dropped.
	overflow chan struct{}
	once     sync.Once
}

// C delivers the tenant's pushes in acknowledgement order.
func (s *Subscription) C() <-chan *Batch { return s.c }

// Overflowed is closed when the subscriber fell QueueBatches pushes behind
// and stopped receiving.
func (s *Subscription) Overflowed() <-chan struct{} { return s.overflow }

// Close stops the subscription.
func (s *Subscription) Close() {
	s.hub.mu.Lock()
	delete(s.hub.subs, s)
	s.hub.mu.Unlock()
}

// Subscribe starts receiving t's pushes and returns the ones still in the
// replay ring, oldest first.
func (h *Hub) Subscribe(t tenant.ID) (*Subscription, []*Batch) {
	s := &Subscription{hub: h, tenant: t, c: make(chan *Batch, QueueBatches), overflow: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expire()
	var replay []*Batch
	for _, b := range h.ring {
		if b.Tenant == t {
			replay = append(replay, b)
		}
	}
	h.subs[s] = struct{}{}
	return s, replay
}

// Publish hands an acknowledged push to the tenant's subscribers without
// blocking the push: a subscriber whose queue is full is dropped.
func (h *Hub) Publish(t tenant.ID, streams []lokidata.Stream) {
	b := &Batch{Tenant: t, Streams: streams, at: h.now(), bytes: batchBytes(streams)}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ring = append(h.ring, b)
	h.bytes += b.bytes
	h.expire()
	if h.sweeper == nil {
		h.sweeper = time.AfterFunc(h.maxAge, h.sweep)
	}
	for s := range h.subs {
		if s.tenant != t {
			continue
		}
		select {
		case s.c <- b:
		default:
			delete(h.subs, s)
			s.once.Do(func() { close(s.overflow) })
		}
	}
}

// Subscribers counts the open subscriptions.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// sweep expires the ring, again when its oldest push ages out while any
// is left.
func (h *Hub) sweep() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expire()
	if len(h.ring) == 0 {
		h.sweeper = nil
		return
	}
	h.sweeper.Reset(max(h.ring[0].at.Add(h.maxAge).Sub(h.now()), time.Millisecond))
}

// expire drops ring batches older than maxAge or beyond maxB bytes.
func (h *Hub) expire() {
	cut := h.now().Add(-h.maxAge)
	n := 0
	for n < len(h.ring) && (h.ring[n].at.Before(cut) || h.bytes > h.maxB) {
		h.bytes -= h.ring[n].bytes
		h.ring[n] = nil
		n++
	}
	h.ring = h.ring[n:]
}

func batchBytes(streams []lokidata.Stream) int {
	n := 0
	for _, s := range streams {
		for _, l := range s.Labels {
			n += len(l.Name) + len(l.Value)
		}
		for _, e := range s.Entries {
			n += len(e.Line) + 16
			for _, l := range e.StructuredMetadata {
				n += len(l.Name) + len(l.Value)
			}
		}
	}
	return n
}
