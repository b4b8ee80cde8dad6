package logs

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vloki/vloki/internal/acked/streamindex"
)

// TestTimeTopIsNthEntryTime: over random streams (sorted times, with
// repeats within and across streams), the edge is the n-th time of all
// entries in direction order, and full only when there are n.
func TestTimeTopIsNthEntryTime(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for round := range 500 {
		var streams [][]streamindex.Line
		var all []int64
		for range r.IntN(6) {
			var lines []streamindex.Line
			for range r.IntN(40) {
				ts := r.Int64N(60)
				lines = append(lines, streamindex.Line{TS: ts})
				all = append(all, ts)
			}
			slices.SortFunc(lines, func(a, b streamindex.Line) int { return int(a.TS - b.TS) })
			streams = append(streams, lines)
		}
		for _, backward := range []bool{true, false} {
			n := r.IntN(len(all) + 3)
			top := newTimeTop(n, backward)
			for _, s := range streams {
				top.addLines(s)
			}
			got, full := top.edge()
			want := slices.Clone(all)
			slices.Sort(want)
			if backward {
				slices.Reverse(want)
			}
			wantFull := n > 0 && len(want) >= n
			if full != wantFull || (full && got != want[n-1]) {
				t.Fatalf("round %d backward=%v n=%d of %d: got %d,%v want full=%v %v", round, backward, n, len(all), got, full, wantFull, want)
			}
		}
	}
}
