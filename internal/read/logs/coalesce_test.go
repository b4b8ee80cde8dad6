package logs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
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
		got := spansOf(coalesce(partsOf(ranges), n))
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

func partsOf(ranges [][2]int64) []plan.NeedlePart {
	var parts []plan.NeedlePart
	for _, r := range ranges {
		parts = append(parts, plan.NeedlePart{Start: r[0], End: r[1]})
	}
	return parts
}

func spansOf(parts []plan.NeedlePart) [][2]int64 {
	ranges := [][2]int64{}
	for _, p := range parts {
		ranges = append(ranges, [2]int64{p.Start, p.End})
	}
	return ranges
}

// fixedNeedles answers every string with the same parts.
type fixedNeedles []plan.NeedlePart

func (f fixedNeedles) Candidates(context.Context, tenant.ID, []*logql.Matcher, string, int64, int64) ([]plan.NeedlePart, bool, error) {
	return slices.Clone(f), true, nil
}

// TestCandidatesReadMostOfARangeWhole: parts covering at most half of the
// range are read apart, more is read whole.
func TestCandidatesReadMostOfARangeWhole(t *testing.T) {
	for _, c := range []struct {
		parts fixedNeedles
		want  string
	}{
		{fixedNeedles(partsOf([][2]int64{{10, 19}, {50, 89}})), "[[10 19] [50 89]]"},
		{fixedNeedles(partsOf([][2]int64{{10, 19}, {40, 89}})), "[[0 99]]"},
		{fixedNeedles{}, "[]"},
	} {
		w := &walker{req: Request{Query: &plan.LogQuery{Contains: []string{"0123456789abcdef"}}, Start: 0, End: 100, Needles: c.parts}}
		got, err := w.candidates(context.Background())
		if err != nil || fmt.Sprint(spansOf(got)) != c.want {
			t.Errorf("%v: %v %v, want %s", c.parts, got, err, c.want)
		}
	}
}

// TestJoinedPartsAreInEitherPartsStreams: joining parts joins their
// streams, once each; a part in any stream makes the joined one so; a
// part naming more than maxPartStreams streams is read in all.
func TestJoinedPartsAreInEitherPartsStreams(t *testing.T) {
	ls := func(v string) lokidata.Labels { return lokidata.Labels{{Name: "pod", Value: v}} }
	parts := []plan.NeedlePart{
		{Start: 0, End: 9, Streams: []lokidata.Labels{ls("a"), ls("b")}},
		{Start: 11, End: 19, Streams: []lokidata.Labels{ls("b"), ls("c")}},
		{Start: 21, End: 29, Streams: []lokidata.Labels{ls("d")}},
		{Start: 1000, End: 1009},
	}
	got := coalesce(parts, 2)
	if fmt.Sprint(got) != `[{0 29 [{pod="a"} {pod="b"} {pod="c"} {pod="d"}]} {1000 1009 []}]` {
		t.Errorf("got %v", got)
	}
	if got = coalesce(got, 1); got[0].Streams != nil {
		t.Errorf("joined with a part in any stream: %v", got[0].Streams)
	}
	var many []lokidata.Labels
	for i := range maxPartStreams + 1 {
		many = append(many, ls(fmt.Sprint(i)))
	}
	q := &plan.LogQuery{Contains: []string{"0123456789abcdef"}}
	for n, want := range map[int]bool{maxPartStreams: true, maxPartStreams + 1: false} {
		got, ok, err := NeedleParts(context.Background(), fixedNeedles{{Start: 0, End: 9, Streams: many[:n]}}, tenant.ID{}, q, 0, 99)
		if err != nil || !ok || (got[0].Streams != nil) != want {
			t.Errorf("%d streams: named %v (%v %v), want %v", n, got[0].Streams != nil, ok, err, want)
		}
	}
}
