package needles

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
)

// TestRepeatedWordsTakeNoRoom: a long word in every line of an hour takes
// its windows' room once; distinct ids take theirs each.
func TestRepeatedWordsTakeNoRoom(t *testing.T) {
	lines := func(id func(i int) string) []lokidata.Stream {
		var s lokidata.Stream
		for i := range 6000 {
			s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: int64(i), Line: `{"tags":["preserve_original_event"],"id":"` + id(i) + `"}`})
		}
		return []lokidata.Stream{s}
	}
	same, distinct := New(Config{MaxBytes: 1 << 30}), New(Config{MaxBytes: 1 << 30})
	same.Writing(t1, lines(func(int) string { return "x" }))
	distinct.Writing(t1, lines(func(i int) string { return fmt.Sprintf("%019d", i*7919) }))
	if same.Bytes() != firstSegmentBits/8 {
		t.Errorf("one word repeated: %d bytes, want one segment", same.Bytes())
	}
	// 6,000 ids of 4 windows each, at bitsPerEntry bits a window: doubling
	// segments leave at most as much again unused.
	if want := 2*6000*4*bitsPerEntry/8 + firstSegmentBits/8; distinct.Bytes() > want {
		t.Errorf("6,000 ids: %d bytes, want at most %d", distinct.Bytes(), want)
	}
}

// TestFalseHoursAtThirtyMillionLines: hours as dense as the scale
// bench's 30 M lines over 30 days (41,700 lines over 100 streams, each
// with a 19- or 20-digit id) let few 19-digit ids they lack through, and
// name few buckets besides an id's own: a string is looked for in each
// segment alone, and an hour's bucket sized as its hour before is one.
func TestFalseHoursAtThirtyMillionLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 41))
	ix := New(Config{MaxBytes: 1 << 30})
	var ids []string
	var buckets []int
	for h := range int64(2) {
		streams := make([]lokidata.Stream, 100)
		for i := range streams {
			streams[i].Labels = lokidata.Labels{{Name: "agent", Value: "benchmark"}, {Name: "shard", Value: fmt.Sprint(i)}}
		}
		for i := range 41700 {
			id := fmt.Sprint(1e18 + rng.Uint64N(9e18))
			if rng.IntN(2) == 0 {
				id = fmt.Sprint(rng.IntN(10)) + id
			}
			s := &streams[rng.IntN(len(streams))]
			s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: h*hourNs + int64(i)*(hourNs/41700), Line: `{"trace_id":"` + id + `"}`})
			if h == 1 && i%100 == 0 {
				ids, buckets = append(ids, id), append(buckets, BucketOf(s.Labels))
			}
		}
		ix.Writing(t1, streams)
	}
	const asked = 20000
	passed := 0
	for range asked {
		id := fmt.Sprint(1e18 + rng.Uint64N(9e18))
		if r, _ := ix.Candidates(t1, id, hourNs, 2*hourNs-1); len(r) > 0 {
			passed++
		}
	}
	others := 0
	for i, id := range ids {
		parts, _ := ix.Candidates(t1, id, hourNs, 2*hourNs-1)
		if len(parts) != 1 || parts[0].Buckets&(1<<buckets[i]) == 0 {
			t.Fatalf("%s: %v, want its hour with bucket %d", id, parts, buckets[i])
		}
		others += bits.OnesCount32(parts[0].Buckets) - 1
	}
	t.Logf("%d B of filters; %d of %d absent ids passed; %d other buckets named for %d ids", ix.Bytes(), passed, asked, others, len(ids))
	if passed > asked/2000 { // 0.05%: under one hour in five months
		t.Errorf("%d of %d absent ids passed the hour's filter", passed, asked)
	}
	if others > len(ids)/100 {
		t.Errorf("%d other buckets named for %d ids", others, len(ids))
	}
	// The second hour's buckets took one segment each, at most an eighth
	// larger than bitsPerEntry bits a window.
	windows := 0
	for b := range Buckets {
		windows += ix.tenants[t1].hours[1].buckets[b].entries()
		if n := len(ix.tenants[t1].hours[1].buckets[b].segments); n != 1 {
			t.Errorf("bucket %d: %d segments in an hour sized as the one before", b, n)
		}
	}
	if size := ix.tenants[t1].hours[1].size(); size > windows*bitsPerEntry/8*9/8 {
		t.Errorf("an hour of %d windows takes %d B", windows, size)
	}
}
