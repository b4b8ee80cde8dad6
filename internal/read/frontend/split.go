package frontend

import (
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/metric"
)

// splitInterval is Loki's default split_queries_by_interval.
const splitInterval = int64(time.Hour)

// alignToStep rounds start down and end up to multiples of the step, as
// Loki's query frontend does before splitting a metric query (the step
// counts in whole milliseconds there).
func alignToStep(start, end, step int64) (int64, int64) {
	if step <= 0 {
		return start, end
	}
	if mod := end % step; mod != 0 {
		end += step - mod
	}
	return start - start%step, end
}

// splitRanges are the sub-queries Loki's frontend makes of a metric range
// query (metricQuerySplitter.split with the default interval, start and
// end aligned to the step): with a step at least the interval, one per
// step, each from its step to the next; otherwise up to the last step
// before each interval boundary. A range of one step is not split.
func splitRanges(start, end, step int64, e logql.SampleExpr) []metric.SplitRange {
	if step <= 0 {
		return nil
	}
	interval := splitIntervalFor(e)
	var out []metric.SplitRange
	if step >= interval {
		for s := start; s < end; s += step {
			out = append(out, metric.SplitRange{Start: s, End: min(s+step, end)})
		}
		return out
	}
	for s := start; s < end; {
		splEnd := nextIntervalBoundary(s, step, interval)
		if splEnd+step >= end {
			splEnd = end
		}
		out = append(out, metric.SplitRange{Start: s, End: splEnd})
		s = splEnd + step
	}
	return out
}

func nextIntervalBoundary(t, step, interval int64) int64 {
	next := (t/interval + 1) * interval
	target := next - (next-t)%step
	if target == next {
		target -= step
	}
	return target
}

// splitIntervalFor is the frontend's split interval for the query: the
// default, or the longest range when longer (reduceSplitIntervalForRangeVector;
// offsets do not count there).
func splitIntervalFor(e logql.SampleExpr) int64 {
	return max(splitInterval, int64(logql.LongestRange(e)))
}
