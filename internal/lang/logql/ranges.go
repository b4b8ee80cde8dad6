package logql

import "time"

// LongestRange is the longest range of e's range aggregations, offsets
// not counted (0 without any).
func LongestRange(e Expr) time.Duration {
	var out time.Duration
	Walk(e, func(n Expr) bool {
		if r, ok := n.(*RangeAggregationExpr); ok {
			out = max(out, r.Left.Interval)
		}
		return true
	})
	return out
}

// LongestReach is how far before an evaluation time e reads: the longest
// range plus offset of its range aggregations.
func LongestReach(e Expr) time.Duration {
	var out time.Duration
	Walk(e, func(n Expr) bool {
		if r, ok := n.(*RangeAggregationExpr); ok {
			out = max(out, r.Left.Interval+r.Left.Offset)
		}
		return true
	})
	return out
}
