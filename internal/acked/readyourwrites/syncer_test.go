package readyourwrites

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/acked/acks"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
)

// pushed is a one-entry push.
var pushed = []lokidata.Stream{{Entries: []lokidata.Entry{{TimestampNs: 1}}}}

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
	s := New(f.flush, acks.New(acks.Config{}))
	if err := s.Wait(context.Background(), tenant.ID{}); err != nil || f.n.Load() != 0 {
		t.Fatalf("err %v, %d flushes", err, f.n.Load())
	}
}

func TestReadsShareOneFlushAfterTheirAck(t *testing.T) {
	f := &countingFlush{}
	ledger := acks.New(acks.Config{})
	s := New(f.flush, ledger)
	a, b := tenant.ID{AccountID: 1}, tenant.ID{AccountID: 2}
	ledger.Acked(a, pushed)
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
	ledger := acks.New(acks.Config{})
	s := New(f.flush, ledger)
	tn := tenant.ID{}
	ledger.Acked(tn, pushed)
	first := make(chan struct{})
	go func() { _ = s.Wait(context.Background(), tn); close(first) }()
	for f.n.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ledger.Acked(tn, pushed) // acknowledged after the running flush began
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
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	ledger := acks.New(acks.Config{Now: clock})
	s := New(f.flush, ledger)
	s.now = clock
	ledger.Acked(tenant.ID{}, pushed)
	now = now.Add(Window + time.Second)
	_ = s.Wait(context.Background(), tenant.ID{})
	if f.n.Load() != 0 {
		t.Fatal("flushed for an acknowledgement VictoriaLogs already shows")
	}
	ledger.Acked(tenant.ID{}, pushed)
	_ = s.Wait(context.Background(), tenant.ID{})
	ledger.Acked(tenant.ID{}, pushed)
	_ = s.Wait(context.Background(), tenant.ID{})
	if f.n.Load() != 1 {
		t.Fatalf("%d flushes: a backend without force_flush is asked once", f.n.Load())
	}
}

// TestWaitCoversAPushItsSubscribersAreToldOf: the ledger records an
// acknowledgement before it tells the push's subscribers (and before it
// numbers the push), so a read that learns of the push from any of them
// waits for it.
func TestWaitCoversAPushItsSubscribersAreToldOf(t *testing.T) {
	f := &countingFlush{}
	ledger := acks.New(acks.Config{Keep: acks.Keep})
	s := New(f.flush, ledger)
	ledger.Subscribe(acks.Subscriber{Acked: func(p acks.Push) {
		_ = s.Wait(context.Background(), p.Tenant)
		if f.n.Load() != 1 {
			t.Errorf("a subscriber's read did not wait for the push it was told of: %d flushes", f.n.Load())
		}
	}})
	ledger.Acked(tenant.ID{AccountID: 9}, pushed)
	_ = s.Wait(context.Background(), tenant.ID{AccountID: 9})
	if f.n.Load() != 1 {
		t.Fatalf("%d flushes", f.n.Load())
	}
}
