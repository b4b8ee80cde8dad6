package metric

import (
	"context"
	"sort"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
)

// Steps is a metric query's value at each of its steps, before the
// frontend's assembly into series (merge of sub-query answers, series
// limit, order). A step's value depends on the data and its own time only,
// so steps evaluated by different requests of one query and step join
// into the value one request would evaluate: the results cache keeps them
// as extents. The exception is SplitBound.
type Steps struct {
	times []int64 // ns, ascending, Step apart
	v     value
	// logs are the querier answers' series at these steps (see seriesLog).
	logs []*seriesLog
	// splitBound: series were cut where Loki's frontend stops reading
	// them (jamTwins), which depends on where the request's sub-queries
	// begin.
	splitBound bool
}

// SplitBound reports steps whose values depend on the request's
// sub-queries, not only on their own times: they are not to be reused
// by another request.
func (s *Steps) SplitBound() bool { return s.splitBound }

// EvalSteps evaluates a metric query at its steps; a range query's
// sub-queries (req.Splits) are checked against max_query_series as Loki's
// queriers check them. prior, when set, holds the request's steps before
// req.Start, kept from earlier requests: the checks count their series
// too.
func EvalSteps(ctx context.Context, c *backend.Client, t tenant.ID, req Request, prior *Steps) (*Steps, error) {
	ev := &evaluator{c: c, t: t, req: req, steps: steps(req), mem: budget{max: req.MaxBufferedBytes}, prior: prior}
	v, err := ev.eval(ctx, req.Query)
	if err != nil {
		return nil, err
	}
	if !v.scalar {
		shareLabels(v.vectors)
	}
	return &Steps{times: ev.steps, v: v, logs: ev.logs, splitBound: ev.jammed}, nil
}

// shareLabels makes a sample whose labels equal those of the sample at
// its position in the step before hold that sample's labels slice: the
// evaluation builds a labels slice per sample, and steps kept as extents
// would hold (and Bytes walk) one copy per step instead of per series.
// The vectors must be the caller's own (not yet shared).
func shareLabels(vectors [][]sample) {
	for j := 1; j < len(vectors); j++ {
		prev, cur := vectors[j-1], vectors[j]
		for i := range min(len(prev), len(cur)) {
			if !sameSlice(cur[i].labels, prev[i].labels) && lokidata.Compare(cur[i].labels, prev[i].labels) == 0 {
				cur[i].labels = prev[i].labels
			}
		}
	}
}

// sameSlice reports two labels slices with the same backing array and
// length.
func sameSlice(a, b lokidata.Labels) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// CheckKept makes the series-limit checks of a range query answered from
// kept steps alone.
func CheckKept(req Request, s *Steps) error {
	ev := &evaluator{req: req, steps: s.times}
	for _, l := range s.logs {
		if l != nil && req.MaxSeries > 0 {
			if err := ev.checkSeries(ev.maxSplitSeries(l, nil)); err != nil {
				return err
			}
		}
	}
	return nil
}

// AssembleMatrix builds the range query's answer from its steps, as the
// frontend builds it from its sub-queries' answers; s holds every step of
// req.
func AssembleMatrix(req Request, s *Steps) (*Result, error) {
	ev := &evaluator{req: req, steps: s.times}
	return ev.matrixResult(s.v)
}

// Len is the number of steps.
func (s *Steps) Len() int { return len(s.times) }

// First and Last are the first and last steps' times (ns); only for a
// non-empty s.
func (s *Steps) First() int64 { return s.times[0] }
func (s *Steps) Last() int64  { return s.times[len(s.times)-1] }

// Slice returns the steps in [from, to], sharing s's values (which are
// never modified).
func (s *Steps) Slice(from, to int64) *Steps {
	lo := sort.Search(len(s.times), func(i int) bool { return s.times[i] >= from })
	hi := sort.Search(len(s.times), func(i int) bool { return s.times[i] > to })
	out := &Steps{times: s.times[lo:hi:hi], v: value{scalar: s.v.scalar}, splitBound: s.splitBound}
	if s.v.scalar {
		out.v.scalars = s.v.scalars[lo:hi:hi]
	} else {
		out.v.vectors = s.v.vectors[lo:hi:hi]
	}
	for _, l := range s.logs {
		out.logs = append(out.logs, l.slice(lo, hi))
	}
	return out
}

// JoinSteps returns a's steps followed by b's; b must start one step
// after a ends, and both must come from one query.
func JoinSteps(a, b *Steps) *Steps {
	if a.Len() == 0 {
		return b
	}
	if b.Len() == 0 {
		return a
	}
	out := &Steps{v: value{scalar: a.v.scalar}, splitBound: a.splitBound || b.splitBound}
	out.times = append(append(make([]int64, 0, a.Len()+b.Len()), a.times...), b.times...)
	if a.v.scalar {
		out.v.scalars = append(append(make([]float64, 0, a.Len()+b.Len()), a.v.scalars...), b.v.scalars...)
	} else {
		out.v.vectors = append(append(make([][]sample, 0, a.Len()+b.Len()), a.v.vectors...), b.v.vectors...)
	}
	for i := range max(len(a.logs), len(b.logs)) {
		out.logs = append(out.logs, joinLogs(logAt(a.logs, i), logAt(b.logs, i)))
	}
	return out
}

func logAt(logs []*seriesLog, i int) *seriesLog {
	if i < len(logs) {
		return logs[i]
	}
	return nil
}

// Scalar reports whether the steps hold scalars.
func (s *Steps) Scalar() bool { return s.v.scalar }

// Bytes estimates the memory s holds, its label sets counted once per
// distinct slice.
func (s *Steps) Bytes() int64 {
	n := int64(len(s.times)) * 8
	for _, l := range s.logs {
		n += l.bytes()
	}
	if s.v.scalar {
		return n + int64(len(s.v.scalars))*8
	}
	seen := map[labelsSlice]bool{}
	var prev []sample
	for _, vec := range s.v.vectors {
		n += 24 + int64(len(vec))*sampleBytes
		for i, smp := range vec {
			if i < len(prev) && sameSlice(smp.labels, prev[i].labels) {
				continue // counted with the step before (shareLabels)
			}
			if sl, ok := sliceOf(smp.labels); ok && !seen[sl] {
				seen[sl] = true
				n += labelsBytes(smp.labels)
			}
		}
		prev = vec
	}
	return n
}
