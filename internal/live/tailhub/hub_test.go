package tailhub

import (
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

func batch(line string) []lokidata.Stream {
	return []lokidata.Stream{{Labels: lokidata.Labels{{Name: "app", Value: "a"}}, Entries: []lokidata.Entry{{TimestampNs: 1, Line: line}}}}
}

func TestPublishReachesOnlyTheTenant(t *testing.T) {
	h := New()
	a, b := tenant.ID{AccountID: 1}, tenant.ID{AccountID: 2}
	sub, replay := h.Subscribe(a)
	defer sub.Close()
	if len(replay) != 0 {
		t.Fatalf("replay %d", len(replay))
	}
	h.Publish(b, batch("b"))
	h.Publish(a, batch("a"))
	got := <-sub.C()
	if got.Streams[0].Entries[0].Line != "a" || len(sub.C()) != 0 {
		t.Fatalf("got %+v, %d more", got, len(sub.C()))
	}
}

func TestReplayKeepsRecentPushesOfTheTenant(t *testing.T) {
	h := New()
	now := time.Unix(100, 0)
	h.now = func() time.Time { return now }
	a := tenant.ID{AccountID: 1}
	h.Publish(a, batch("old"))
	now = now.Add(2 * time.Second)
	h.Publish(a, batch("recent"))
	h.Publish(tenant.ID{AccountID: 2}, batch("other"))
	now = now.Add(1500 * time.Millisecond) // "old" is 3.5 s old: gone
	sub, replay := h.Subscribe(a)
	defer sub.Close()
	if len(replay) != 1 || replay[0].Streams[0].Entries[0].Line != "recent" {
		t.Fatalf("replay %+v", replay)
	}
}

func TestReplayBoundedByBytes(t *testing.T) {
	h := New()
	h.maxB = 10
	a := tenant.ID{}
	h.Publish(a, batch("first"))
	h.Publish(a, batch("second"))
	if _, replay := h.Subscribe(a); len(replay) != 0 || h.bytes != 0 {
		t.Fatalf("replay %d, bytes %d", len(replay), h.bytes)
	}
}

func TestSlowSubscriberIsDroppedNotBlocking(t *testing.T) {
	h := New()
	sub, _ := h.Subscribe(tenant.ID{})
	for range QueueBatches + 1 {
		h.Publish(tenant.ID{}, batch("x"))
	}
	select {
	case <-sub.Overflowed():
	default:
		t.Fatal("not dropped")
	}
	if h.Subscribers() != 0 {
		t.Fatalf("%d subscribers", h.Subscribers())
	}
}

// TestRingEmptiesWithoutFurtherPushes: the last pushes are let go once
// they age out, not held until the next push.
func TestRingEmptiesWithoutFurtherPushes(t *testing.T) {
	h := New()
	h.maxAge = 50 * time.Millisecond
	a := tenant.ID{AccountID: 1}
	h.Publish(a, batch("first"))
	time.Sleep(30 * time.Millisecond)
	h.Publish(a, batch("second"))
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.mu.Lock()
		n, b := len(h.ring), h.bytes
		h.mu.Unlock()
		if n == 0 && b == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ring still holds %d pushes (%d bytes)", n, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, replay := h.Subscribe(a); len(replay) != 0 {
		t.Fatalf("replayed %d pushes", len(replay))
	}
	h.Publish(a, batch("third")) // the sweeper starts again
	if _, replay := h.Subscribe(a); len(replay) != 1 {
		t.Fatalf("replayed %d pushes, want the third", len(replay))
	}
}
