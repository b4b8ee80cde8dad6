package queue

import (
	"slices"

	"github.com/vloki/vloki/internal/edge/tenant"
)

// lane holds one lane's waiters: a FIFO per tenant, tenants taken in turn.
type lane struct {
	queues map[tenant.ID][]*waiter
	order  []tenant.ID // tenants with waiters, in turn order
	turn   int         // index in order of the tenant whose turn it is
}

func (l *lane) empty() bool { return len(l.order) == 0 }

func (l *lane) push(w *waiter) {
	if len(l.queues[w.tenant]) == 0 {
		l.order = append(l.order, w.tenant)
	}
	l.queues[w.tenant] = append(l.queues[w.tenant], w)
}

// peek is the head of the tenant whose turn it is.
func (l *lane) peek() *waiter {
	if l.empty() {
		return nil
	}
	return l.queues[l.order[l.turn%len(l.order)]][0]
}

// remove takes w out; when it was the head of its tenant's turn, the turn
// passes to the next tenant.
func (l *lane) remove(w *waiter) {
	q := l.queues[w.tenant]
	i := slices.Index(q, w)
	if i < 0 {
		return
	}
	q = slices.Delete(q, i, i+1)
	idx := slices.Index(l.order, w.tenant)
	if len(q) > 0 {
		l.queues[w.tenant] = q
		if i == 0 && idx == l.turn%len(l.order) {
			l.turn = (idx + 1) % len(l.order)
		}
		return
	}
	delete(l.queues, w.tenant)
	l.order = slices.Delete(l.order, idx, idx+1)
	switch {
	case len(l.order) == 0:
		l.turn = 0
	case idx < l.turn:
		l.turn--
	}
	l.turn %= max(len(l.order), 1)
}
