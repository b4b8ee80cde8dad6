package dedup

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

func TestWithin(t *testing.T) {
	md := func(kv ...string) lokidata.Labels {
		var ls lokidata.Labels
		for i := 0; i < len(kv); i += 2 {
			ls = append(ls, lokidata.Label{Name: kv[i], Value: kv[i+1]})
		}
		return ls
	}
	a := lokidata.Labels{{Name: "app", Value: "a"}}
	streams := []lokidata.Stream{
		{Labels: a, Entries: []lokidata.Entry{
			{TimestampNs: 1, Line: "x"}, {TimestampNs: 1, Line: "x"}, {TimestampNs: 1, Line: "y"},
			{TimestampNs: 2, Line: "x", StructuredMetadata: md("k", "1", "j", "2")},
			{TimestampNs: 2, Line: "x", StructuredMetadata: md("j", "2", "k", "1")}, // the same set
			{TimestampNs: 2, Line: "x", StructuredMetadata: md("k", "1")},
		}},
		{Labels: a, Entries: []lokidata.Entry{{TimestampNs: 1, Line: "y"}}}, // the same stream again
		{Labels: lokidata.Labels{{Name: "app", Value: "b"}}, Entries: []lokidata.Entry{{TimestampNs: 1, Line: "x"}}},
	}
	got := Within(streams)
	if len(got) != 2 || len(got[0].Entries) != 4 || len(got[1].Entries) != 1 {
		t.Fatalf("got %+v", got)
	}
}

// TestWithinOrderedPushes: entries at distinct times within each stream
// (in order, or not: an OTLP export's resources of one stream) skip the
// keys, but a stream sent twice in one push, or entries sharing a time,
// still lose their repeats.
func TestWithinOrderedPushes(t *testing.T) {
	a := lokidata.Labels{{Name: "app", Value: "a"}}
	b := lokidata.Labels{{Name: "app", Value: "b"}}
	e := func(ts int64, line string) lokidata.Entry { return lokidata.Entry{TimestampNs: ts, Line: line} }
	for _, c := range []struct {
		name    string
		streams []lokidata.Stream
		want    []int
	}{
		{"ordered", []lokidata.Stream{{Labels: a, Entries: []lokidata.Entry{e(1, "x"), e(2, "x")}}, {Labels: b, Entries: []lokidata.Entry{e(1, "x")}}, {Labels: b}}, []int{2, 1}},
		{"stream sent twice", []lokidata.Stream{{Labels: a, Entries: []lokidata.Entry{e(1, "x"), e(2, "y")}}, {Labels: a, Entries: []lokidata.Entry{e(2, "y")}}}, []int{2}},
		{"out of order", []lokidata.Stream{{Labels: a, Entries: []lokidata.Entry{e(2, "x"), e(1, "y"), e(2, "x")}}}, []int{2}},
		{"out of order, times distinct", []lokidata.Stream{{Labels: a, Entries: []lokidata.Entry{e(3, "x"), e(1, "x"), e(2, "x")}}}, []int{3}},
		{"out of order, a repeat far apart", []lokidata.Stream{{Labels: a, Entries: []lokidata.Entry{e(5, "x"), e(1, "y"), e(3, "z"), e(5, "x"), e(4, "x")}}}, []int{4}},
	} {
		got := Within(c.streams)
		var n []int
		for _, s := range got {
			n = append(n, len(s.Entries))
		}
		if len(n) != len(c.want) || (len(n) > 0 && n[0] != c.want[0]) || (len(n) > 1 && n[1] != c.want[1]) {
			t.Errorf("%s: entries per stream %v, want %v", c.name, n, c.want)
		}
	}
}

// TestBeginDropsStoredEntries: entries the stream already holds (same
// time, line and metadata set) are dropped, the rest kept in order, while
// the lookup streams a span far larger than the push.
func TestBeginDropsStoredEntries(t *testing.T) {
	a := lokidata.Labels{{Name: "app", Value: "a"}}
	md := lokidata.Labels{{Name: "k", Value: "1"}, {Name: "j", Value: "2"}}
	mdSwapped := lokidata.Labels{{Name: "j", Value: "2"}, {Name: "k", Value: "1"}}
	d := &Deduper{
		Newest: func(tenant.ID, string) (int64, bool) { return 0, false },
		Wait:   func(context.Context, tenant.ID) error { return nil },
		Lookup: func(_ context.Context, _ tenant.ID, _ lokidata.Labels, from, to int64, fn func(lokidata.Entry)) error {
			for ts := from; ts <= to; ts++ { // every ns of the span holds a line
				fn(lokidata.Entry{TimestampNs: ts, Line: "stored"})
			}
			fn(lokidata.Entry{TimestampNs: 50, Line: "m", StructuredMetadata: mdSwapped})
			return nil
		},
	}
	push := []lokidata.Stream{{Labels: a, Entries: []lokidata.Entry{
		{TimestampNs: 10, Line: "stored"},                              // held: dropped
		{TimestampNs: 10, Line: "new"},                                 // same time, another line: kept
		{TimestampNs: 50, Line: "m", StructuredMetadata: md},           // the same metadata set: dropped
		{TimestampNs: 50, Line: "m"},                                   // without the metadata: kept
		{TimestampNs: 200_000, Line: "stored"},                         // held: dropped
		{TimestampNs: 200_000, Line: "stored", StructuredMetadata: md}, // kept
	}}}
	kept, done, err := d.Begin(context.Background(), tenant.ID{}, push)
	done()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range kept[0].Entries {
		got = append(got, fmt.Sprintf("%d %s %d", e.TimestampNs, e.Line, len(e.StructuredMetadata)))
	}
	want := []string{"10 new 0", "50 m 0", "200000 stored 2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
}

// TestBeginAsksStorageOnlyForHeldTimes: when what vloki keeps of its
// pushes says the stream holds no entry at a time, that entry is kept
// without waiting for a flush or reading the storage; held times are
// looked up, over their own span only; unknown ones as before.
func TestBeginAsksStorageOnlyForHeldTimes(t *testing.T) {
	a := lokidata.Labels{{Name: "app", Value: "a"}}
	var waits int
	var spans [][2]int64
	heldTimes := map[int64]bool{20: true, 30: true}
	known := true
	d := &Deduper{
		Newest: func(tenant.ID, string) (int64, bool) { return 1000, true },
		Held: func(_ context.Context, _ tenant.ID, _ string, times []int64) ([]bool, bool) {
			held := make([]bool, len(times))
			for i, ts := range times {
				held[i] = heldTimes[ts]
			}
			return held, known
		},
		Wait: func(context.Context, tenant.ID) error { waits++; return nil },
		Lookup: func(_ context.Context, _ tenant.ID, _ lokidata.Labels, from, to int64, fn func(lokidata.Entry)) error {
			spans = append(spans, [2]int64{from, to})
			for ts := range heldTimes {
				if ts >= from && ts <= to {
					fn(lokidata.Entry{TimestampNs: ts, Line: "x"})
				}
			}
			return nil
		},
	}
	push := func(ts ...int64) int {
		s := lokidata.Stream{Labels: a}
		for _, x := range ts {
			s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: x, Line: "x"})
		}
		kept, done, err := d.Begin(context.Background(), tenant.ID{}, []lokidata.Stream{s})
		done()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range kept {
			n += len(s.Entries)
		}
		return n
	}
	if n := push(10, 15, 25); n != 3 || waits != 0 || len(spans) != 0 {
		t.Errorf("new times: kept %d, %d waits, lookups %v", n, waits, spans)
	}
	if n := push(10, 20, 25, 30, 40); n != 3 || waits != 1 || len(spans) != 1 || spans[0] != [2]int64{20, 30} {
		t.Errorf("held times: kept %d, %d waits, lookups %v", n, waits, spans)
	}
	known, spans = false, nil
	if n := push(10, 20, 40); n != 2 || len(spans) != 1 || spans[0] != [2]int64{10, 40} {
		t.Errorf("unknown: kept %d, lookups %v", n, spans)
	}
}

// TestBeginWaitsOnlyForOverlappingPushes: while a push of a stream is in
// flight, another push of it over disjoint times begins at once, one
// whose times overlap (a retry racing the first) waits until the first
// is acknowledged, and a push of another stream or tenant is not held.
func TestBeginWaitsOnlyForOverlappingPushes(t *testing.T) {
	d := &Deduper{
		Newest: func(tenant.ID, string) (int64, bool) { return 0, false },
		Held: func(_ context.Context, _ tenant.ID, _ string, times []int64) ([]bool, bool) {
			return make([]bool, len(times)), true
		},
		Wait: func(context.Context, tenant.ID) error { return nil },
		Lookup: func(context.Context, tenant.ID, lokidata.Labels, int64, int64, func(lokidata.Entry)) error {
			return nil
		},
	}
	stream := func(app string, ts ...int64) []lokidata.Stream {
		s := lokidata.Stream{Labels: lokidata.Labels{{Name: "app", Value: app}}}
		for _, x := range ts {
			s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: x, Line: "x"})
		}
		return []lokidata.Stream{s}
	}
	begin := func(tn tenant.ID, streams []lokidata.Stream) <-chan func() {
		c := make(chan func(), 1)
		go func() {
			_, done, err := d.Begin(context.Background(), tn, streams)
			if err != nil {
				t.Error(err)
			}
			c <- done
		}()
		return c
	}
	soon := func(c <-chan func()) (func(), bool) {
		select {
		case done := <-c:
			return done, true
		case <-time.After(200 * time.Millisecond):
			return nil, false
		}
	}
	first, ok := soon(begin(tenant.ID{}, stream("a", 100, 200)))
	if !ok {
		t.Fatal("the first push did not begin")
	}
	disjoint, ok := soon(begin(tenant.ID{}, stream("a", 300, 400)))
	if !ok {
		t.Fatal("a push over disjoint times waited")
	}
	disjoint()
	other, ok := soon(begin(tenant.ID{AccountID: 1}, stream("a", 150)))
	if !ok {
		t.Fatal("another tenant's push waited")
	}
	other()
	retry := begin(tenant.ID{}, stream("a", 150, 250))
	if _, ok := soon(retry); ok {
		t.Fatal("an overlapping push did not wait")
	}
	first()
	if done, ok := soon(retry); !ok {
		t.Fatal("the overlapping push still waits once the first was acknowledged")
	} else {
		done()
	}
}
