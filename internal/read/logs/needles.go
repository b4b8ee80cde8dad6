package logs

import (
	"context"
	"slices"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/plan"
)

// Needles tells the parts of [start, end] (Unix ns, inclusive) whose rows
// of the streams selector selects may hold s (Query.Contains says where),
// oldest first, each with the only streams that may (nil: any); ok is
// false when it cannot tell.
type Needles interface {
	Candidates(ctx context.Context, t tenant.ID, selector []*logql.Matcher, s string, start, end int64) (parts []plan.NeedlePart, ok bool, err error)
}

// candidates are the parts of the walk's range it reads, oldest first:
// where a needle index says its rows can hold what the query's rows must
// (Query.Contains), else the whole range.
func (w *walker) candidates(ctx context.Context) ([]plan.NeedlePart, error) {
	whole := []plan.NeedlePart{{Start: w.req.Start, End: w.req.End - 1}}
	if w.req.Needles == nil || w.req.Start >= w.req.End {
		return whole, nil
	}
	parts, ok, err := NeedleParts(ctx, w.req.Needles, w.t, w.req.Query, w.req.Start, w.req.End-1)
	if err != nil || !ok {
		return whole, err
	}
	return parts, nil
}

// NeedleParts are the parts of [start, end] (Unix ns, inclusive) worth
// reading alone for q's rows, which hold every string of q.Contains,
// oldest first: the first string's candidate parts that cover at most
// half the range, at most maxParts of them (the smallest gaps joined),
// each in at most maxPartStreams streams or in all. ok is false when no
// string narrows the range that much: it is read whole.
func NeedleParts(ctx context.Context, n Needles, t tenant.ID, q *plan.LogQuery, start, end int64) (parts []plan.NeedlePart, ok bool, err error) {
	for _, s := range q.Contains {
		parts, ok, err := n.Candidates(ctx, t, q.Selector, s, start, end)
		if err != nil {
			return nil, false, err
		}
		if ok && spanned(parts) <= (end-start+1)/2 {
			parts = coalesce(parts, maxParts)
			for i := range parts {
				if len(parts[i].Streams) > maxPartStreams {
					parts[i].Streams = nil
				}
			}
			return parts, true, nil
		}
	}
	return nil, false, nil
}

// spanned is the time the parts cover. Parts covering over half the
// range are read whole: a request or two instead of one a part.
func spanned(parts []plan.NeedlePart) int64 {
	var n int64
	for _, p := range parts {
		n += p.End - p.Start + 1
	}
	return n
}

// maxParts bounds the parts a walk reads apart: each costs a request or
// two, so a string in every other hour of a month does not make hundreds.
const maxParts = 32

// maxPartStreams bounds the streams a part's reads name: past it, the
// query's text would cost more than reading the other streams' blocks.
const maxPartStreams = 64

// coalesce joins the parts separated by the smallest gaps until at most
// n are left; a joined part is in the streams of either.
func coalesce(parts []plan.NeedlePart, n int) []plan.NeedlePart {
	if len(parts) <= n {
		return parts
	}
	gaps := make([]int64, len(parts)-1)
	for i := range gaps {
		gaps[i] = parts[i+1].Start - parts[i].End
	}
	slices.Sort(gaps)
	limit := gaps[len(parts)-n-1] // joining every gap up to it leaves at most n
	out := parts[:1]
	for _, p := range parts[1:] {
		if last := &out[len(out)-1]; p.Start-last.End <= limit {
			last.End = p.End
			last.Streams = union(last.Streams, p.Streams)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// union is the streams of a and b (nil, any stream, when either is).
func union(a, b []lokidata.Labels) []lokidata.Labels {
	if a == nil || b == nil {
		return nil
	}
	seen := make(map[string]bool, len(a))
	out := slices.Clip(a)
	for _, ls := range a {
		seen[ls.String()] = true
	}
	for _, ls := range b {
		if k := ls.String(); !seen[k] {
			seen[k] = true
			out = append(out, ls)
		}
	}
	return out
}
