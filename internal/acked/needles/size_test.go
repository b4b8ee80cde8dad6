package needles

import (
	"fmt"
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
