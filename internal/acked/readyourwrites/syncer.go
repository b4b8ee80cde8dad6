// Package readyourwrites gives every read the pushes acknowledged before it,
// as Loki's ingesters do. VictoriaLogs acknowledges a row before it can be
// searched: its row buffers flush about once a second, a query reading
// _stream skips the rows whose stream the day partition's index has not
// flushed yet (a second or two later; a different subset each query), and
// a query whose stream filter it has cached sees a new stream only when
// that cache is reset, about every 10 s. When the tenant asking had a push acknowledged
// in that window and not yet flushed, the read first waits for a flush
// (VictoriaLogs' /internal/force_flush, which also resets the cache).
//
// Flushes are shared: one runs at a time, at most one every MinGap, and a
// read waits only for the first flush that started after its tenant's
// last acknowledgement. Reads of tenants that did not push pay nothing.
// The acknowledgements are read from the ledger of acknowledged pushes
// (acks.Ledger); this package keeps only the flushes.
package readyourwrites

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/acked/acks"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
)

// Timings.
const (
	// Window is how long after an acknowledgement VictoriaLogs may still
	// hide the row: its 10 s stream-filter cache reset, plus its jitter.
	Window = 12 * time.Second
	// MinGap spaces flushes, so a read-heavy tenant that also pushes
	// causes at most 1/MinGap flushes a second.
	MinGap = 20 * time.Millisecond
)

// Syncer flushes before reads that may not see their tenant's
// acknowledged pushes.
type Syncer struct {
	flush func(context.Context) error
	acks  *acks.Ledger
	now   func() time.Time

	mu        sync.Mutex
	flushed   uint64 // every acknowledgement up to this one (acks.Ack.Order) is visible
	inflight  *flushCall
	lastFlush time.Time
	disabled  bool // the backend cannot flush (a cluster's vlselect)
}

// flushCall is one flush; acknowledgements up to seq are visible after it.
type flushCall struct {
	seq  uint64
	done chan struct{}
}

// New returns a Syncer that makes the pushes acknowledged in ledger
// searchable with flush.
func New(flush func(context.Context) error, ledger *acks.Ledger) *Syncer {
	return &Syncer{flush: flush, acks: ledger, now: time.Now}
}

// Wait returns once every push of t acknowledged so far is searchable, or
// a flush that should have made it so failed (the read then meets the
// same backend trouble), or ctx ends.
func (s *Syncer) Wait(ctx context.Context, t tenant.ID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		a := s.acks.LastAck(t)
		if a.Order == 0 || s.disabled || a.Order <= s.flushed || s.now().Sub(a.At) > Window {
			return nil
		}
		call := s.inflight
		if call == nil {
			call = s.startLocked()
		}
		s.mu.Unlock()
		select {
		case <-call.done:
		case <-ctx.Done():
			s.mu.Lock()
			return ctx.Err()
		}
		s.mu.Lock()
		if call.seq >= a.Order {
			return nil // covered, flushed or failed
		}
	}
}

// startLocked starts a flush covering every acknowledgement so far.
func (s *Syncer) startLocked() *flushCall {
	call := &flushCall{seq: s.acks.Acknowledged(), done: make(chan struct{})}
	s.inflight = call
	wait := MinGap - s.now().Sub(s.lastFlush)
	go func() {
		if wait > 0 {
			time.Sleep(wait)
		}
		// A flush serves every waiting read: it is not tied to the
		// first reader's context.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := s.flush(ctx)
		cancel()
		s.mu.Lock()
		switch {
		case err == nil:
			s.flushed = max(s.flushed, call.seq)
		case isUnsupported(err):
			s.disabled = true
		}
		s.lastFlush, s.inflight = s.now(), nil
		s.mu.Unlock()
		close(call.done)
	}()
	return call
}

// isUnsupported reports a backend that has no force_flush: a cluster's
// vlselect answers 404 (or 400) for it. Reads then see rows when
// VictoriaLogs shows them.
func isUnsupported(err error) bool {
	var be *backend.Error
	return errors.As(err, &be) && (be.Status == 404 || be.Status == 400)
}
