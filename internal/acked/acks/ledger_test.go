package acks

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

func push(ts ...int64) []lokidata.Stream {
	s := lokidata.Stream{}
	for _, x := range ts {
		s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: x})
	}
	return []lokidata.Stream{s}
}

func TestOldestSince(t *testing.T) {
	l, tn := New(Config{Keep: Keep}), tenant.ID{AccountID: 3}
	if o, ok := l.OldestSince(tn, 0); !ok || o != math.MaxInt64 {
		t.Fatalf("empty ledger: %d %v", o, ok)
	}
	l.Acked(tn, push(500, 300))
	s := l.Seq(tn)
	l.Acked(tn, push(900))
	l.Acked(tn, push(700, 800))
	if o, ok := l.OldestSince(tn, s); !ok || o != 700 {
		t.Errorf("since the first push: %d %v, want 700", o, ok)
	}
	if o, ok := l.OldestSince(tn, 0); !ok || o != 300 {
		t.Errorf("since the start: %d %v, want 300", o, ok)
	}
	if o, ok := l.OldestSince(tn, l.Seq(tn)); !ok || o != math.MaxInt64 {
		t.Errorf("since the last push: %d %v", o, ok)
	}
	if _, ok := l.OldestSince(tn, l.Seq(tn)+1); ok {
		t.Error("a push number not given yet was answered")
	}
	l.Failed(tn)
	if o, ok := l.OldestSince(tn, s); !ok || o != math.MinInt64 {
		t.Errorf("after a failed push: %d %v", o, ok)
	}
	if _, ok := l.OldestSince(tenant.ID{}, 0); !ok {
		t.Error("another tenant sees this one's pushes")
	}
}

// TestHistoryIsBounded: a tenant holds between Keep and 2*Keep pushes;
// numbers older than that are unknown.
func TestHistoryIsBounded(t *testing.T) {
	const keep = 8
	l, tn := New(Config{Keep: keep}), tenant.ID{}
	for i := range 2 * keep {
		l.Acked(tn, push(int64(i)))
		if held := len(l.tenants[tn].oldest); held > 2*keep {
			t.Fatalf("%d pushes held, bound %d", held, 2*keep)
		}
	}
	if _, ok := l.OldestSince(tn, 1); ok {
		t.Error("a number older than the history was answered")
	}
	if o, ok := l.OldestSince(tn, l.Seq(tn)-2); !ok || o != 2*keep-2 {
		t.Errorf("recent number: %d %v", o, ok)
	}
	if l.Seq(tn) != 2*keep {
		t.Errorf("numbers restarted when the history was trimmed: %d", l.Seq(tn))
	}
}

// TestWithoutHistory: with Keep 0 (another writer may write), pushes are
// still numbered and their acknowledgements kept, no oldest entry is.
func TestWithoutHistory(t *testing.T) {
	l, tn := New(Config{}), tenant.ID{AccountID: 1}
	l.Acked(tn, push(5))
	l.Failed(tn)
	if l.Seq(tn) != 2 || len(l.tenants[tn].oldest) != 0 {
		t.Fatalf("seq %d, %d oldest kept", l.Seq(tn), len(l.tenants[tn].oldest))
	}
	if _, ok := l.OldestSince(tn, 1); ok {
		t.Error("answered without a history")
	}
	if o, ok := l.OldestSince(tn, 2); !ok || o != math.MaxInt64 {
		t.Errorf("since the last number: %d %v", o, ok)
	}
}

func TestLastAcknowledgement(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(Config{Now: func() time.Time { return now }})
	a, b := tenant.ID{AccountID: 1}, tenant.ID{AccountID: 2}
	if got := l.LastAck(a); got.Order != 0 || !got.At.IsZero() {
		t.Fatalf("no push yet: %+v", got)
	}
	l.Acked(a, push(1))
	now = now.Add(time.Second)
	l.Acked(b, push(1))
	l.Failed(a)
	if got := l.LastAck(a); got.Order != 1 || !got.At.Equal(time.Unix(1000, 0)) {
		t.Errorf("a: %+v (a failed push is no acknowledgement)", got)
	}
	if got := l.LastAck(b); got.Order != 2 || !got.At.Equal(now) {
		t.Errorf("b: %+v", got)
	}
	if l.Acknowledged() != 2 {
		t.Errorf("%d acknowledgements", l.Acknowledged())
	}
}

// TestSubscribersInOrder: every subscriber is told, in the list's order,
// after the push is the tenant's last acknowledgement and before it has
// its number.
func TestSubscribersInOrder(t *testing.T) {
	l, tn := New(Config{Keep: Keep}), tenant.ID{AccountID: 4}
	var told []string
	sub := func(name string) Subscriber {
		return Subscriber{
			Writing: func(_ context.Context, got tenant.ID, _ []lokidata.Stream) { told = append(told, name+" writing") },
			Acked: func(p Push) {
				if ack := l.LastAck(p.Tenant); ack.Order != l.Acknowledged() || !ack.At.Equal(p.At) {
					t.Errorf("%s told before the acknowledgement was recorded: %+v", name, ack)
				}
				if l.Seq(p.Tenant) != 0 {
					t.Errorf("%s told after the push was numbered", name)
				}
				if p.Oldest != 7 || len(p.Streams) != 1 {
					t.Errorf("%s told %+v", name, p)
				}
				told = append(told, name+" acked")
			},
			Failed: func(tenant.ID) {
				if l.Seq(tn) != 1 {
					t.Errorf("%s told of a failure after it was numbered", name)
				}
				told = append(told, name+" failed")
			},
		}
	}
	l.Subscribe(sub("first"), Subscriber{}, sub("second"))
	l.Writing(context.Background(), tn, nil)
	l.Acked(tn, push(9, 7))
	l.Failed(tn)
	want := []string{"first writing", "second writing", "first acked", "second acked", "first failed", "second failed"}
	if len(told) != len(want) {
		t.Fatalf("told %q", told)
	}
	for i := range want {
		if told[i] != want[i] {
			t.Fatalf("told %q, want %q", told, want)
		}
	}
	if l.Seq(tn) != 2 {
		t.Errorf("seq %d", l.Seq(tn))
	}
}

func TestStreamsAdapter(t *testing.T) {
	var got tenant.ID
	var n int
	Streams(func(t tenant.ID, s []lokidata.Stream) { got, n = t, len(s) })(Push{Tenant: tenant.ID{ProjectID: 2}, Streams: push(1)})
	if got.ProjectID != 2 || n != 1 {
		t.Fatalf("%+v %d", got, n)
	}
}

// TestConcurrentAcksAndReads: pushes of several tenants acknowledged
// from many goroutines while readers watch: numbers only grow, a number
// once seen is answered, and every push is counted once.
func TestConcurrentAcksAndReads(t *testing.T) {
	const tenants, writers, each = 3, 4, 500
	l := New(Config{Keep: 64})
	var told atomic.Uint64
	l.Subscribe(Subscriber{Acked: func(Push) { told.Add(1) }})
	done := make(chan struct{})
	var readers sync.WaitGroup
	for r := range tenants {
		readers.Add(1)
		go func() {
			defer readers.Done()
			tn := tenant.ID{AccountID: uint32(r)}
			var last uint64
			var lastOrder uint64
			for {
				select {
				case <-done:
					return
				default:
				}
				seq := l.Seq(tn)
				if seq < last {
					t.Errorf("tenant %d: number went back from %d to %d", r, last, seq)
					return
				}
				// Unknown only once the history moved past it.
				if _, ok := l.OldestSince(tn, seq); !ok && l.Seq(tn)-seq < 64 {
					t.Errorf("tenant %d: number %d just read is unknown", r, seq)
					return
				}
				ack := l.LastAck(tn)
				if ack.Order < lastOrder || ack.Order > l.Acknowledged() {
					t.Errorf("tenant %d: acknowledgement order %d after %d", r, ack.Order, lastOrder)
					return
				}
				last, lastOrder = seq, ack.Order
			}
		}()
	}
	var writersWG sync.WaitGroup
	for w := range writers {
		writersWG.Add(1)
		go func() {
			defer writersWG.Done()
			for i := range each {
				tn := tenant.ID{AccountID: uint32((w + i) % tenants)}
				if i%10 == 0 {
					l.Failed(tn)
				} else {
					l.Acked(tn, push(int64(i)))
				}
			}
		}()
	}
	writersWG.Wait()
	close(done)
	readers.Wait()
	var total uint64
	for r := range tenants {
		total += l.Seq(tenant.ID{AccountID: uint32(r)})
	}
	if total != writers*each {
		t.Errorf("%d pushes numbered, want %d", total, writers*each)
	}
	if want := uint64(writers * each * 9 / 10); l.Acknowledged() != want {
		t.Errorf("%d acknowledgements, want %d", l.Acknowledged(), want)
	}
	if told.Load() != l.Acknowledged() {
		t.Errorf("subscriber told of %d pushes, %d acknowledged", told.Load(), l.Acknowledged())
	}
}

// TestGap: after a gap, nothing counted before it is taken as unchanged,
// for a tenant the ledger knew and for one it meets only later; while the
// ledger is incomplete, push numbers are unknown.
func TestGap(t *testing.T) {
	complete := true
	l := New(Config{Keep: Keep, Complete: func() bool { return complete }})
	known, later := tenant.ID{AccountID: 1}, tenant.ID{AccountID: 2}
	l.Acked(known, push(500))
	knownSeq, laterSeq := l.Seq(known), l.Seq(later)
	l.Gap()
	if o, ok := l.OldestSince(known, knownSeq); ok && o != math.MinInt64 {
		t.Errorf("known tenant since before the gap: %d, want unknown or MinInt64", o)
	}
	if o, ok := l.OldestSince(later, laterSeq); ok {
		t.Errorf("unmet tenant since before the gap: %d, want unknown", o)
	}
	if o, ok := l.OldestSince(later, l.Seq(later)); !ok || o != math.MaxInt64 {
		t.Errorf("unmet tenant since the gap: %d %v, want none", o, ok)
	}
	l.Acked(later, push(700))
	if o, ok := l.OldestSince(later, laterSeq); ok {
		t.Errorf("tenant met after the gap, since before it: %d, want unknown", o)
	}
	if o, ok := l.OldestSince(later, l.Seq(later)-1); !ok || o != 700 {
		t.Errorf("tenant met after the gap, its own push: %d %v, want 700", o, ok)
	}
	complete = false
	if _, ok := l.KnownSeq(known); ok {
		t.Error("KnownSeq while incomplete")
	}
	if _, ok := l.OldestSince(known, l.Seq(known)); ok {
		t.Error("OldestSince while incomplete")
	}
}
