// Package queue admits queries to a bounded number of execution slots, as
// Loki's query scheduler does: a bounded queue per tenant (429 "too many
// outstanding requests" beyond it), tenants served in turn, and a cap on
// the slots long-range queries may hold, so a short request never waits
// behind a wall of long ones.
//
// Bounding the queries that run at once bounds the memory they hold and
// keeps latency proportional to load instead of letting every request slow
// every other one.
package queue

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
)

// Lane separates short requests from long-range ones.
type Lane int

// Lanes.
const (
	Short Lane = iota
	Long
)

// ErrTooManyOutstanding is Loki's answer when a tenant's queue is full.
var ErrTooManyOutstanding = errors.New("too many outstanding requests")

// Config sizes the queue.
type Config struct {
	// MaxConcurrent is how many queries run at once.
	MaxConcurrent int
	// MaxLong is how many of them may be long-range (< MaxConcurrent, so
	// short requests always have a slot).
	MaxLong int
	// MaxOutstandingPerTenant bounds a tenant's waiting queries.
	MaxOutstandingPerTenant int
}

// Queue hands out slots.
type Queue struct {
	cfg Config

	mu          sync.Mutex
	running     int
	runningLong int
	lanes       [2]lane
	waiting     map[tenant.ID]int
}

// waiter is one queued request.
type waiter struct {
	tenant  tenant.ID
	lane    Lane
	since   time.Time
	ready   chan struct{}
	granted bool
}

// New returns a queue; MaxLong is clamped below MaxConcurrent.
func New(cfg Config) *Queue {
	cfg.MaxConcurrent = max(cfg.MaxConcurrent, 2)
	if cfg.MaxLong <= 0 || cfg.MaxLong >= cfg.MaxConcurrent {
		cfg.MaxLong = cfg.MaxConcurrent - 1
	}
	q := &Queue{cfg: cfg, waiting: map[tenant.ID]int{}}
	for i := range q.lanes {
		q.lanes[i].queues = map[tenant.ID][]*waiter{}
	}
	return q
}

// Acquire waits for a slot and returns its release; it fails at once with
// ErrTooManyOutstanding when t's queue is full, or when ctx ends.
func (q *Queue) Acquire(ctx context.Context, t tenant.ID, l Lane) (func(), error) {
	q.mu.Lock()
	if q.lanes[l].empty() && q.canRun(l) {
		q.start(l)
		q.mu.Unlock()
		return q.releaser(l), nil
	}
	if q.cfg.MaxOutstandingPerTenant > 0 && q.waiting[t] >= q.cfg.MaxOutstandingPerTenant {
		q.mu.Unlock()
		return nil, ErrTooManyOutstanding
	}
	w := &waiter{tenant: t, lane: l, since: time.Now(), ready: make(chan struct{})}
	q.lanes[l].push(w)
	q.waiting[t]++
	q.mu.Unlock()
	select {
	case <-w.ready:
		return q.releaser(l), nil
	case <-ctx.Done():
		q.mu.Lock()
		defer q.mu.Unlock()
		if w.granted {
			q.finish(l) // the slot came as the client left: pass it on
		} else {
			q.lanes[l].remove(w)
			q.dropWaiting(t)
		}
		return nil, ctx.Err()
	}
}

// Stats reports the running and waiting queries.
func (q *Queue) Stats() (running, waiting int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, n := range q.waiting {
		waiting += n
	}
	return q.running, waiting
}

func (q *Queue) canRun(l Lane) bool {
	return q.running < q.cfg.MaxConcurrent && (l == Short || q.runningLong < q.cfg.MaxLong)
}

func (q *Queue) start(l Lane) {
	q.running++
	if l == Long {
		q.runningLong++
	}
}

func (q *Queue) releaser(l Lane) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			q.finish(l)
		})
	}
}

// finish frees a slot and hands slots to the waiters that may run, the
// longest-waiting lane head first.
func (q *Queue) finish(l Lane) {
	q.running--
	if l == Long {
		q.runningLong--
	}
	for {
		next := q.next()
		if next == nil {
			return
		}
		q.lanes[next.lane].remove(next)
		q.dropWaiting(next.tenant)
		q.start(next.lane)
		next.granted = true
		close(next.ready)
	}
}

// next is the waiter to run now: of the lanes that may run, the one whose
// next tenant's head has waited longest.
func (q *Queue) next() *waiter {
	var best *waiter
	for l := range q.lanes {
		if !q.canRun(Lane(l)) {
			continue
		}
		if w := q.lanes[l].peek(); w != nil && (best == nil || w.since.Before(best.since)) {
			best = w
		}
	}
	return best
}

func (q *Queue) dropWaiting(t tenant.ID) {
	if q.waiting[t]--; q.waiting[t] <= 0 {
		delete(q.waiting, t)
	}
}
