package frontend

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vloki/vloki/internal/read/logs"
)

// spanOver is a span [lo, hi) holding one entry per timestamp given.
func spanOver(lo, hi int64, ts ...int64) *recentSpan {
	res := &logs.Result{}
	if len(ts) > 0 {
		res.Streams = append(res.Streams, streamAt("a", ts...))
	}
	return answerSpan(res, logs.Request{Start: lo, End: hi, Limit: 1000}, true)
}

func spanTimes(s *recentSpan) []int64 {
	var out []int64
	for _, e := range s.all() {
		out = append(out, e.e.TimestampNs)
	}
	return out
}

// Spans that overlap or touch merge into one, the fresher span's entries
// taken where they overlap; others stay apart, in time order.
func TestRecentSetMerges(t *testing.T) {
	var set recentSet
	set = set.with(spanOver(100, 200, 150))
	set = set.with(spanOver(300, 400, 350))
	set = set.with(spanOver(10, 50, 20))
	if len(set) != 3 || set[0].lo != 10 || set[1].lo != 100 || set[2].lo != 300 {
		t.Fatalf("apart: %v", set)
	}
	// Touches [100, 200) and overlaps [300, 400): one span [100, 400).
	fresh := spanOver(200, 320, 310, 250)
	set = set.with(fresh)
	if len(set) != 2 || set[1].lo != 100 || set[1].hi != 400 {
		t.Fatalf("merged: [%d, %d) of %d spans", set[1].lo, set[1].hi, len(set))
	}
	got := spanTimes(set[1])
	want := []int64{350, 310, 250, 150}
	if len(got) != len(want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("entries %v, want %v", got, want)
		}
	}
}

// The span completing a request holds its end's last instant or is the
// newest one before it, and reaches its start or holds its limit.
func TestRecentSetCompleting(t *testing.T) {
	set := recentSet{spanOver(100, 200, 150, 120), spanOver(300, 400, 390, 350, 310)}
	cases := []struct {
		start, end int64
		limit      int
		want       int64 // the span's lo, 0 for none
	}{
		{300, 400, 10, 300}, // inside the newer span
		{310, 380, 10, 300}, // inside, end not at the span's end
		{250, 380, 10, 0},   // reaches below the span, under the limit
		{250, 380, 2, 300},  // below it, but the span holds the limit
		{110, 250, 10, 100}, // end after the older span: the rest is read
		{100, 300, 10, 100}, // end exactly at the newer span's start
		{200, 300, 10, 0},   // between the spans
		{500, 600, 10, 0},   // after both: nothing below reaches it
		{120, 401, 10, 0},   // the newer span does not reach 120
		{301, 1000, 1, 300}, // far after, the limit held
		{50, 100, 10, 0},    // before both
		{199, 200, 10, 100}, // the older span's last instant
		{200, 201, 10, 0},   // just after it, below the newer
		{300, 301, 10, 300}, // the newer span's first instant
		{150, 151, 1, 100},  // one instant holding the limit
		{101, 150, 1, 100},  // the limit held by 120
		{101, 119, 1, 100},  // nothing in it, but inside the span
	}
	for _, c := range cases {
		s := set.completing(logs.Request{Start: c.start, End: c.end, Limit: c.limit})
		got := int64(0)
		if s != nil {
			got = s.lo
		}
		if got != c.want {
			t.Errorf("[%d, %d) limit %d: span at %d, want %d", c.start, c.end, c.limit, got, c.want)
		}
	}
}

// A span refreshed again and again keeps its entries in chunks: cut,
// count and first read across them as over one list, and past maxChunks
// they are copied into one.
func TestSpanChunks(t *testing.T) {
	s := spanOver(0, 10, 5)
	for hi := int64(20); hi <= 400; hi += 10 {
		newer := spanOver(hi-10, hi, hi-5, hi-7)
		s = s.withNewer(newer.all(), hi)
		if len(s.chunks) > maxChunks {
			t.Fatalf("%d chunks", len(s.chunks))
		}
	}
	all := s.all()
	if s.lo != 0 || s.hi != 400 || len(all) != 1+2*39 || all[0].e.TimestampNs != 395 || all[len(all)-1].e.TimestampNs != 5 {
		t.Fatalf("[%d, %d) with %d entries: %v … %v", s.lo, s.hi, len(all), all[0].e.TimestampNs, all[len(all)-1].e.TimestampNs)
	}
	for i := 1; i < len(all); i++ {
		if all[i].e.TimestampNs > all[i-1].e.TimestampNs {
			t.Fatalf("not newest first at %d: %v", i, spanTimes(s))
		}
	}
	if n := s.count(100, 200); n != 20 {
		t.Fatalf("count [100, 200): %d", n)
	}
	c := s.cut(103, 195)
	got := spanTimes(c)
	if len(got) != 19 || got[0] != 193 || got[len(got)-1] != 103 {
		t.Fatalf("cut [103, 195): %v", got)
	}
	if f := c.first(3); len(f) != 3 || f[2].e.TimestampNs != 183 {
		t.Fatalf("first 3: %v", f)
	}
	if c.size() <= 64 || c.size() >= s.size() {
		t.Fatalf("sizes: cut %d, whole %d", c.size(), s.size())
	}
}

// newest, the view an answer takes, holds what cutting the span and
// taking its first entries holds, over spans of many chunks and random
// bounds.
func TestSpanNewestIsCutFirst(t *testing.T) {
	s := spanOver(0, 10, 5)
	for hi := int64(20); hi <= 400; hi += 10 {
		s = s.withNewer(spanOver(hi-10, hi, hi-5, hi-7, hi-7).all(), hi)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		lo, hi, n := r.Int64N(420)-10, r.Int64N(420)-10, r.IntN(60)
		var want []int64
		if c := s.cut(lo, hi); c != nil && n > 0 {
			for _, e := range c.first(n) {
				want = append(want, e.e.TimestampNs)
			}
		}
		var got []int64
		for _, e := range s.newest(lo, hi, n) {
			got = append(got, e.e.TimestampNs)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("[%d, %d) newest %d: %v, cut and first: %v", lo, hi, n, got, want)
		}
	}
}
