package logs

import (
	"math/rand/v2"
	"testing"
)

// TestCoalesceJoinsTheSmallestGaps: at most n ranges are left, every
// range's times stay covered, and the gaps kept are the widest.
func TestCoalesceJoinsTheSmallestGaps(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for range 300 {
		var ranges [][2]int64
		at := int64(0)
		for range r.IntN(60) {
			at += 1 + r.Int64N(50)
			lo := at
			at += r.Int64N(20)
			ranges = append(ranges, [2]int64{lo, at})
		}
		orig := append([][2]int64(nil), ranges...)
		n := 1 + r.IntN(10)
		got := coalesce(ranges, n)
		if len(got) > n {
			t.Fatalf("%d ranges left, want at most %d", len(got), n)
		}
		var widestJoined, narrowestKept int64 = -1, 1 << 62
		j := 0
		for i, o := range orig {
			for j < len(got) && got[j][1] < o[0] {
				j++
			}
			if j == len(got) || got[j][0] > o[0] || got[j][1] < o[1] {
				t.Fatalf("%v not covered by %v", o, got)
			}
			if i > 0 {
				gap := o[0] - orig[i-1][1]
				if got[j][0] <= orig[i-1][1] {
					widestJoined = max(widestJoined, gap)
				} else {
					narrowestKept = min(narrowestKept, gap)
				}
			}
		}
		if widestJoined > narrowestKept {
			t.Fatalf("joined a gap of %d, kept one of %d", widestJoined, narrowestKept)
		}
	}
}
