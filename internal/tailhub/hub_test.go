package tailhub

import (
	"testing"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/model"
)

func batch(line string) []model.Stream {
	return []model.Stream{{Labels: model.Labels{{Name: "app", Value: "a"}}, Entries: []model.Entry{{TimestampNs: 1, Line: line}}}}
}

func TestPublishReachesOnlyTheTenant(t *testing.T) {
	h := New()
	a, b := backend.Tenant{AccountID: 1}, backend.Tenant{AccountID: 2}
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
	a := backend.Tenant{AccountID: 1}
	h.Publish(a, batch("old"))
	now = now.Add(2 * time.Second)
	h.Publish(a, batch("recent"))
	h.Publish(backend.Tenant{AccountID: 2}, batch("other"))
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
	a := backend.Tenant{}
	h.Publish(a, batch("first"))
	h.Publish(a, batch("second"))
	if _, replay := h.Subscribe(a); len(replay) != 0 || h.bytes != 0 {
		t.Fatalf("replay %d, bytes %d", len(replay), h.bytes)
	}
}

func TestSlowSubscriberIsDroppedNotBlocking(t *testing.T) {
	h := New()
	sub, _ := h.Subscribe(backend.Tenant{})
	for range QueueBatches + 1 {
		h.Publish(backend.Tenant{}, batch("x"))
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
