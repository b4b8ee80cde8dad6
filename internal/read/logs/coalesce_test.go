package logs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/plan"
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

// fixedNeedles answers every string with the same parts.
type fixedNeedles [][2]int64

func (f fixedNeedles) Candidates(context.Context, tenant.ID, string, int64, int64) ([][2]int64, bool, error) {
	return f, true, nil
}

// TestCandidatesReadMostOfARangeWhole: parts covering at most half of the
// range are read apart, more is read whole.
func TestCandidatesReadMostOfARangeWhole(t *testing.T) {
	for _, c := range []struct {
		parts fixedNeedles
		want  string
	}{
		{fixedNeedles{{10, 19}, {50, 89}}, "[[10 19] [50 89]]"},
		{fixedNeedles{{10, 19}, {40, 89}}, "[[0 99]]"},
		{fixedNeedles{}, "[]"},
	} {
		w := &walker{req: Request{Query: &plan.LogQuery{Contains: []string{"0123456789abcdef"}}, Start: 0, End: 100, Needles: c.parts}}
		got, err := w.candidates(context.Background())
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("%v: %v %v, want %s", c.parts, got, err, c.want)
		}
	}
}
