// Package tailshare runs one VictoriaLogs live tail per distinct tail
// request and fans its rows out to every vloki tail that asked the same:
// two hundred Grafana users following one query cost VictoriaLogs one
// tail, not two hundred.
package tailshare

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
)

// QueueRows is how many rows a subscriber may fall behind before it is
// dropped (its tail ends with an error, never silently short).
const QueueRows = 8192

// ErrBehind ends a subscription that fell QueueRows behind.
var ErrBehind = errors.New("live tail fell too far behind VictoriaLogs' tail to deliver every entry; reconnect to resume")

// errEnded is what subscribers see when VictoriaLogs ends the tail
// without an error.
var errEnded = errors.New("VictoriaLogs ended the live tail; reconnect to resume")

// Sharer owns the shared tails.
type Sharer struct {
	c *backend.Client

	mu    sync.Mutex
	tails map[key]*shared
}

type key struct {
	t     tenant.ID
	query string
	delay time.Duration
}

// shared is one VictoriaLogs tail and its subscribers.
type shared struct {
	subs   map[*Sub]struct{}
	cancel func()
}

// Sub is one vloki tail's share of a VictoriaLogs tail.
type Sub struct {
	c      chan *backend.Row
	err    error
	closed bool
	s      *Sharer
	k      key
}

// New returns a sharer of c's live tails.
func New(c *backend.Client) *Sharer { return &Sharer{c: c, tails: map[key]*shared{}} }

// Subscribe joins (or starts) the VictoriaLogs tail of req for t.
func (s *Sharer) Subscribe(t tenant.ID, req backend.TailRequest) *Sub {
	k := key{t: t, query: req.Query, delay: req.Delay}
	sub := &Sub{c: make(chan *backend.Row, QueueRows), s: s, k: k}
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := s.tails[k]
	if sh == nil {
		ctx, cancel := context.WithCancel(context.Background())
		sh = &shared{subs: map[*Sub]struct{}{}, cancel: cancel}
		s.tails[k] = sh
		go s.run(ctx, k, sh, req)
	}
	sh.subs[sub] = struct{}{}
	return sub
}

// Active counts the VictoriaLogs tails running.
func (s *Sharer) Active() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tails)
}

// run tails VictoriaLogs and hands every row to the subscribers.
func (s *Sharer) run(ctx context.Context, k key, sh *shared, req backend.TailRequest) {
	err := s.c.Tail(ctx, k.t, req, func(r *backend.Row) error {
		s.deliver(sh, r.Clone())
		return nil
	})
	if err == nil {
		err = errEnded
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tails[k] == sh {
		delete(s.tails, k)
	}
	for sub := range sh.subs {
		sub.end(err)
	}
}

func (s *Sharer) deliver(sh *shared, r *backend.Row) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sub := range sh.subs {
		select {
		case sub.c <- r:
		default:
			delete(sh.subs, sub)
			sub.end(ErrBehind)
		}
	}
}

// end closes the subscription's channel once, with the reason.
func (sub *Sub) end(err error) {
	if !sub.closed {
		sub.closed, sub.err = true, err
		close(sub.c)
	}
}

// C delivers the rows; it is closed when the subscription ends (Err says why).
func (sub *Sub) C() <-chan *backend.Row { return sub.c }

// Err is why C was closed.
func (sub *Sub) Err() error {
	sub.s.mu.Lock()
	defer sub.s.mu.Unlock()
	return sub.err
}

// Close leaves the tail; the last subscriber to leave stops it.
func (sub *Sub) Close() {
	s := sub.s
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := s.tails[sub.k]
	if sh == nil {
		return
	}
	delete(sh.subs, sub)
	if len(sh.subs) == 0 {
		delete(s.tails, sub.k)
		sh.cancel()
	}
}
