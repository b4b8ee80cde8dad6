package embedded

import (
	"context"
	"sync"

	"github.com/vloki/vloki/internal/storage/backend"
)

// gate keeps the storage open while calls use it. VictoriaLogs' packages
// hold global state that Stop tears down; a call that outlives its client
// (a coalesced query runs detached) must meet a clear error after Stop, not
// a nil pointer inside VictoriaLogs.
type gate struct {
	mu     sync.Mutex
	closed bool
	calls  sync.WaitGroup
	ctx    context.Context // cancelled by close, so running calls end soon
	cancel context.CancelFunc
}

func newGate() *gate {
	ctx, cancel := context.WithCancel(context.Background())
	return &gate{ctx: ctx, cancel: cancel}
}

// enter admits one call and returns its context (ctx, also cancelled when
// the engine stops) and the function that ends the call; after close it
// returns an UnavailableError.
func (g *gate) enter(ctx context.Context) (context.Context, func(), error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, nil, errStopped
	}
	g.calls.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(g.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
		g.calls.Done()
	}, nil
}

// close refuses new calls, cancels running ones and waits for them.
func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.cancel()
	g.calls.Wait()
}

var errStopped = &backend.UnavailableError{Reason: "is shutting down"}
