package visibility

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/backend"
)

// countingFlush counts flushes and can hold them until released.
type countingFlush struct {
	n       atomic.Int32
	release chan struct{}
	err     error
}

func (f *countingFlush) flush(context.Context) error {
	f.n.Add(1)
	if f.release != nil {
		<-f.release
	}
	return f.err
}

func TestNoPushNoFlush(t *testing.T) {
	f := &countingFlush{}
	s := New(f.flush)
	if err := s.Wait(context.Background(), backend.Tenant{}); err != nil || f.n.Load() != 0 {
		t.Fatalf("err %v, %d flushes", err, f.n.Load())
	}
}

func TestReadsShareOneFlushAfterTheirAck(t *testing.T) {
	f := &countingFlush{}
	s := New(f.flush)
	a, b := backend.Tenant{AccountID: 1}, backend.Tenant{AccountID: 2}
	s.Acked(a)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = s.Wait(context.Background(), a) }()
	}
	wg.Wait()
	if f.n.Load() != 1 {
		t.Fatalf("%d flushes for 10 reads", f.n.Load())
	}
	_ = s.Wait(context.Background(), a)
	_ = s.Wait(context.Background(), b)
	if f.n.Load() != 1 {
		t.Fatalf("%d flushes: flushed acks and other tenants need none", f.n.Load())
	}
}

func TestAckDuringFlushNeedsAnother(t *testing.T) {
	f := &countingFlush{release: make(chan struct{})}
	s := New(f.flush)
	tn := backend.Tenant{}
	s.Acked(tn)
	first := make(chan struct{})
	go func() { _ = s.Wait(context.Background(), tn); close(first) }()
	for f.n.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	s.Acked(tn) // acknowledged after the running flush began
	second := make(chan struct{})
	go func() { _ = s.Wait(context.Background(), tn); close(second) }()
	f.release <- struct{}{}
	<-first
	f.release <- struct{}{}
	<-second
	if f.n.Load() != 2 {
		t.Fatalf("%d flushes", f.n.Load())
	}
}

func TestOldAcksAndUnsupportedBackends(t *testing.T) {
	f := &countingFlush{err: &backend.Error{Status: 404}}
	s := New(f.flush)
	now := time.Unix(1000, 0)
	s.now = func() time.Time { return now }
	s.Acked(backend.Tenant{})
	now = now.Add(Window + time.Second)
	_ = s.Wait(context.Background(), backend.Tenant{})
	if f.n.Load() != 0 {
		t.Fatal("flushed for an acknowledgement VictoriaLogs already shows")
	}
	s.Acked(backend.Tenant{})
	_ = s.Wait(context.Background(), backend.Tenant{})
	s.Acked(backend.Tenant{})
	_ = s.Wait(context.Background(), backend.Tenant{})
	if f.n.Load() != 1 {
		t.Fatalf("%d flushes: a backend without force_flush is asked once", f.n.Load())
	}
}
