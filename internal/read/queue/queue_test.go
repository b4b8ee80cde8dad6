package queue

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
)

var a, b = tenant.ID{AccountID: 1}, tenant.ID{AccountID: 2}

func mustAcquire(t *testing.T, q *Queue, tn tenant.ID, l Lane) func() {
	t.Helper()
	rel, err := q.Acquire(context.Background(), tn, l)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// acquireAsync queues a request and reports, in order, when it runs.
func acquireAsync(q *Queue, tn tenant.ID, l Lane, name string, ran chan<- string, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		rel, err := q.Acquire(context.Background(), tn, l)
		if err != nil {
			ran <- "error " + err.Error()
			return
		}
		ran <- name
		rel()
	}()
}

func waitQueued(t *testing.T, q *Queue, n int) {
	t.Helper()
	for range 1000 {
		if _, w := q.Stats(); w == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("never %d waiting", n)
}

func TestSlotsAndLongCap(t *testing.T) {
	q := New(Config{MaxConcurrent: 3, MaxLong: 2})
	l1, l2 := mustAcquire(t, q, a, Long), mustAcquire(t, q, a, Long)
	ran := make(chan string, 4)
	var wg sync.WaitGroup
	acquireAsync(q, a, Long, "long3", ran, &wg)
	waitQueued(t, q, 1)
	s := mustAcquire(t, q, b, Short) // the reserved slot
	if r, w := q.Stats(); r != 3 || w != 1 {
		t.Fatalf("running %d, waiting %d", r, w)
	}
	s()
	select {
	case got := <-ran:
		t.Fatalf("%s ran past the long cap", got)
	case <-time.After(20 * time.Millisecond):
	}
	l1()
	if got := <-ran; got != "long3" {
		t.Fatal(got)
	}
	l2()
	wg.Wait()
}

func TestTenantsTakeTurns(t *testing.T) {
	q := New(Config{MaxConcurrent: 2})
	hold := mustAcquire(t, q, a, Short)
	hold2 := mustAcquire(t, q, a, Short)
	ran := make(chan string, 8)
	var wg sync.WaitGroup
	for _, name := range []string{"a1", "a2", "a3"} {
		acquireAsync(q, a, Short, name, ran, &wg)
		waitQueued(t, q, int(name[1]-'0'))
	}
	acquireAsync(q, b, Short, "b1", ran, &wg)
	waitQueued(t, q, 4)
	hold2() // one slot: the waiters run one after another
	var order []string
	for range 4 {
		order = append(order, <-ran)
	}
	hold()
	wg.Wait()
	if got := order[0] + order[1]; got != "a1b1" {
		t.Fatalf("order %v: b waited behind all of a", order)
	}
}

func TestFullQueueAnswers429AndCancelLeaves(t *testing.T) {
	q := New(Config{MaxConcurrent: 2, MaxOutstandingPerTenant: 1})
	h1, h2 := mustAcquire(t, q, a, Short), mustAcquire(t, q, a, Short)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := q.Acquire(ctx, a, Short); errc <- err }()
	waitQueued(t, q, 1)
	if _, err := q.Acquire(context.Background(), a, Short); !errors.Is(err, ErrTooManyOutstanding) {
		t.Fatalf("err %v", err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if r, w := q.Stats(); r != 2 || w != 0 {
		t.Fatalf("running %d, waiting %d after the client left", r, w)
	}
	h1()
	h2()
	if r, _ := q.Stats(); r != 0 {
		t.Fatalf("running %d", r)
	}
}
