package metric

import (
	"sort"

	"github.com/vloki/vloki/internal/lokidata"
)

// seriesLog records which series a querier answer (plan.QuerierAnswer)
// held at each step, so that Loki's per-sub-query max_query_series check
// can be made again over steps kept from earlier requests.
type seriesLog struct {
	times []int64    // ns, the steps
	names []string   // label strings by id
	steps [][]uint32 // per step, the ids of its series
}

// newSeriesLog records v's series at the given steps. A sample whose
// labels are those of the sample at its position in the step before
// takes that sample's id without writing its labels out: a series
// usually keeps its position from step to step.
func newSeriesLog(times []int64, v value) *seriesLog {
	l := &seriesLog{times: times, steps: make([][]uint32, len(times))}
	total := 0
	for _, vec := range v.vectors {
		total += len(vec)
	}
	all := make([]uint32, total)
	ids := map[string]uint32{}
	var prevVec []sample
	var prevIDs []uint32
	for i, vec := range v.vectors {
		stepIDs := all[:len(vec):len(vec)]
		all = all[len(vec):]
		for j, s := range vec {
			if j < len(prevVec) && (sameSlice(s.labels, prevVec[j].labels) || lokidata.Compare(s.labels, prevVec[j].labels) == 0) {
				stepIDs[j] = prevIDs[j]
				continue
			}
			k := s.labels.String()
			id, ok := ids[k]
			if !ok {
				id = uint32(len(l.names))
				ids[k] = id
				l.names = append(l.names, k)
			}
			stepIDs[j] = id
		}
		l.steps[i] = stepIDs
		prevVec, prevIDs = vec, stepIDs
	}
	return l
}

// addIn adds to seen the series the log holds at steps in sp, each
// series' name once.
func (l *seriesLog) addIn(sp SplitRange, seen map[string]bool) {
	if l == nil {
		return
	}
	lo := sort.Search(len(l.times), func(i int) bool { return l.times[i] >= sp.Start })
	hi := sort.Search(len(l.times), func(i int) bool { return l.times[i] > sp.End })
	in := make([]bool, len(l.names))
	for _, ids := range l.steps[lo:hi] {
		for _, id := range ids {
			in[id] = true
		}
	}
	for id, ok := range in {
		if ok {
			seen[l.names[id]] = true
		}
	}
}

// slice is the log's steps in [lo, hi) by index, sharing its names.
func (l *seriesLog) slice(lo, hi int) *seriesLog {
	if l == nil {
		return nil
	}
	return &seriesLog{times: l.times[lo:hi:hi], names: l.names, steps: l.steps[lo:hi:hi]}
}

// join is a's steps followed by b's.
func joinLogs(a, b *seriesLog) *seriesLog {
	if a == nil || b == nil {
		return nil
	}
	out := &seriesLog{names: append([]string(nil), a.names...)}
	out.times = append(append(make([]int64, 0, len(a.times)+len(b.times)), a.times...), b.times...)
	out.steps = append(make([][]uint32, 0, len(out.times)), a.steps...)
	ids := make(map[string]uint32, len(a.names))
	for i, n := range a.names {
		ids[n] = uint32(i)
	}
	for _, step := range b.steps {
		mapped := make([]uint32, len(step))
		for j, id := range step {
			n := b.names[id]
			k, ok := ids[n]
			if !ok {
				k = uint32(len(out.names))
				ids[n] = k
				out.names = append(out.names, n)
			}
			mapped[j] = k
		}
		out.steps = append(out.steps, mapped)
	}
	return out
}

func (l *seriesLog) bytes() int64 {
	if l == nil {
		return 0
	}
	n := int64(len(l.times)) * 32
	for _, s := range l.names {
		n += 16 + int64(len(s))
	}
	for _, ids := range l.steps {
		n += int64(len(ids)) * 4
	}
	return n
}

// maxSplitSeries is the largest number of distinct series any of Loki's
// sub-queries would return for the querier answer logged as cur, with
// prior, when set, holding the request's earlier steps.
func (ev *evaluator) maxSplitSeries(prior, cur *seriesLog) int {
	most := 0
	for _, sp := range ev.splitRanges() {
		seen := map[string]bool{}
		prior.addIn(sp, seen)
		cur.addIn(sp, seen)
		most = max(most, len(seen))
	}
	return most
}

// checkAnswer records querier answer idx's series and checks Loki's
// per-sub-query series limit on it, steps kept from earlier requests
// included.
func (ev *evaluator) checkAnswer(idx int, v value) error {
	for len(ev.logs) <= idx {
		ev.logs = append(ev.logs, nil)
	}
	if v.scalar || ev.req.MaxSeries <= 0 {
		return nil
	}
	cur := newSeriesLog(ev.steps, v)
	ev.logs[idx] = cur
	var prior *seriesLog
	if ev.prior != nil && idx < len(ev.prior.logs) {
		prior = ev.prior.logs[idx]
	}
	return ev.checkSeries(ev.maxSplitSeries(prior, cur))
}
