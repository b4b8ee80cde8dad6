package engine

import (
	"time"

	"github.com/vloki/vloki/internal/logql"
)

// splitInterval is Loki's default split_queries_by_interval.
const splitInterval = int64(time.Hour)

// frontendSplits counts the sub-queries Loki's frontend splits a metric
// range query into (metricQuerySplitter.split with the default interval).
// It matters because Loki merges split answers, which orders series by
// their label string; a single split keeps the engine's labels.Compare
// order.
func frontendSplits(start, end, step int64, e logql.SampleExpr) int {
	return len(splitEnds(start, end, step, e))
}

// splitEnds are the last step times of each split.
func splitEnds(start, end, step int64, e logql.SampleExpr) []int64 {
	interval := max(splitInterval, maxRange(e))
	if step <= 0 {
		return []int64{end}
	}
	var out []int64
	if step >= interval {
		for t := start; t <= end; t += step {
			out = append(out, t)
		}
		return out
	}
	for s := start; s < end; {
		splEnd := nextIntervalBoundary(s, step, interval)
		if splEnd+step >= end {
			splEnd = end
		}
		out = append(out, splEnd)
		s = splEnd + step
	}
	if len(out) == 0 {
		out = []int64{end}
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

// maxRange is the longest range (plus offset) of the query's range
// aggregations.
func maxRange(e logql.SampleExpr) int64 {
	switch e := e.(type) {
	case *logql.RangeAggregationExpr:
		return int64(e.Left.Interval + e.Left.Offset)
	case *logql.VectorAggregationExpr:
		return maxRange(e.Left)
	case *logql.BinOpExpr:
		return max(maxRange(e.LHS), maxRange(e.RHS))
	}
	return 0
}
