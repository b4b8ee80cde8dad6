package metric

// Loki's querier joins a sub-query's samples into series by their printed
// labels (JoinSampleVector), so two groups that print alike (see
// groupLabels) become one series holding two points at one step. Its
// frontend reads each sub-query's matrix step by step (MatrixStepEvaluator),
// taking a series' next point only when its time is the current step:
// after the first of two equal times the series never advances again. The
// series gives the first twin's value at that step and nothing more until
// the sub-query ends. (Which twin comes first follows Loki's map order:
// where the twins' values differ Loki's answer at that step varies from
// one request to the next; vloki takes the first in its own order.)
//
// A query Loki's mapper leaves undivided (plan.QuerierAnswer.Whole) skips
// this reading: its sub-queries' series, repeated times and all, are the
// answer.

// jamTwins drops, in each of the request's sub-queries, every sample of a
// series after its first repeated step, and the repeats at that step; cut
// reports that it dropped any.
func (ev *evaluator) jamTwins(v value) (out value, cut bool) {
	out = value{vectors: append([][]sample(nil), v.vectors...)}
	for _, sp := range ev.splitRanges() {
		stuck := map[string]bool{}
		for i, t := range ev.steps {
			if t < sp.Start || t > sp.End {
				continue
			}
			seen := make(map[string]bool, len(v.vectors[i]))
			kept := make([]sample, 0, len(v.vectors[i]))
			for _, s := range v.vectors[i] {
				k := s.labels.String()
				if stuck[k] {
					continue
				}
				if seen[k] {
					stuck[k] = true
					continue
				}
				seen[k] = true
				kept = append(kept, s)
			}
			cut = cut || len(kept) < len(v.vectors[i])
			out.vectors[i] = kept
		}
	}
	return out, cut
}

// splitRanges are the request's sub-queries: its splits, or itself whole.
func (ev *evaluator) splitRanges() []SplitRange {
	if len(ev.req.Splits) == 0 {
		return []SplitRange{{Start: ev.req.Start, End: ev.req.End}}
	}
	return ev.req.Splits
}
