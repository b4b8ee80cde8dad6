package logs

import (
	"context"
	"slices"

	"github.com/vloki/vloki/internal/edge/tenant"
)

// Needles tells the parts of [start, end] (Unix ns, inclusive) whose rows
// may hold s (Query.Contains says where), oldest first; ok is false when
// it cannot tell.
type Needles interface {
	Candidates(ctx context.Context, t tenant.ID, s string, start, end int64) (ranges [][2]int64, ok bool, err error)
}

// candidates are the parts of the walk's range it reads, oldest first:
// where a needle index says its rows can hold what the query's rows must
// (Query.Contains), else the whole range.
func (w *walker) candidates(ctx context.Context) ([][2]int64, error) {
	whole := [][2]int64{{w.req.Start, w.req.End - 1}}
	if w.req.Needles == nil || w.req.Start >= w.req.End {
		return whole, nil
	}
	ranges, ok, err := NeedleRanges(ctx, w.req.Needles, w.t, w.req.Query.Contains, w.req.Start, w.req.End-1)
	if err != nil || !ok {
		return whole, err
	}
	return ranges, nil
}

// NeedleRanges are the parts of [start, end] (Unix ns, inclusive) worth
// reading alone for rows holding every string of contains, oldest first:
// the first string's candidate parts that cover at most half the range,
// at most maxRanges of them (the smallest gaps joined). ok is false when
// no string narrows the range that much: it is read whole.
func NeedleRanges(ctx context.Context, n Needles, t tenant.ID, contains []string, start, end int64) (ranges [][2]int64, ok bool, err error) {
	for _, s := range contains {
		ranges, ok, err := n.Candidates(ctx, t, s, start, end)
		if err != nil {
			return nil, false, err
		}
		if ok && spanned(ranges) <= (end-start+1)/2 {
			return coalesce(ranges, maxRanges), true, nil
		}
	}
	return nil, false, nil
}

// spanned is the time the ranges cover. Parts covering over half the
// range are read whole: a request or two instead of one a part.
func spanned(ranges [][2]int64) int64 {
	var n int64
	for _, r := range ranges {
		n += r[1] - r[0] + 1
	}
	return n
}

// maxRanges bounds the parts a walk reads apart: each costs a request or
// two, so a string in every other hour of a month does not make hundreds.
const maxRanges = 32

// coalesce joins the ranges separated by the smallest gaps until at most
// n are left.
func coalesce(ranges [][2]int64, n int) [][2]int64 {
	if len(ranges) <= n {
		return ranges
	}
	gaps := make([]int64, len(ranges)-1)
	for i := range gaps {
		gaps[i] = ranges[i+1][0] - ranges[i][1]
	}
	slices.Sort(gaps)
	limit := gaps[len(ranges)-n-1] // joining every gap up to it leaves at most n
	out := ranges[:1]
	for _, r := range ranges[1:] {
		if last := &out[len(out)-1]; r[0]-last[1] <= limit {
			last[1] = r[1]
		} else {
			out = append(out, r)
		}
	}
	return out
}
