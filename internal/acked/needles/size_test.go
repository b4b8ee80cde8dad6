package needles

import (
	"fmt"
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

// TestFalseHoursAtThirtyMillionLines: an hour as dense as the scale
// bench's 30 M lines over 30 days (41,700 lines, each with a 19- or
// 20-digit id) lets few 19-digit ids it lacks through: a string is looked
// for in each segment alone.
func TestFalseHoursAtThirtyMillionLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 41))
	streams, _, _ := idLines(rng, 1, 41700)
	ix := New(Config{MaxBytes: 1 << 30})
	ix.Writing(t1, streams)
	const asked = 20000
	passed := 0
	for range asked {
		id := fmt.Sprint(1e18 + rng.Uint64N(9e18))
		if r, _ := ix.Candidates(t1, id, 0, hourNs-1); len(r) > 0 {
			passed++
		}
	}
	t.Logf("%d B of filters; %d of %d absent ids passed", ix.Bytes(), passed, asked)
	if passed > asked/1000 { // 0.1%: under one hour in a month's 720
		t.Errorf("%d of %d absent ids passed the hour's filter", passed, asked)
	}
}
