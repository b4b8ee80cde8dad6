package metric

import (
	"math"
	"slices"

	"github.com/vloki/vloki/internal/read/plan"
)

// The range aggregations' window functions (rangeEval.window): the value
// of one window's samples (timestamps in ns, values), with Loki's
// arithmetic.

func windowCount(_ *plan.RangeAgg, _ []int64, vals []float64) float64 { return float64(len(vals)) }

// windowRate is the entries a second, or the unwrapped values'.
func windowRate(m *plan.RangeAgg, ts []int64, vals []float64) float64 {
	if m.Unwrap == nil {
		return float64(len(vals)) / rangeSeconds(m)
	}
	return windowSumRate(m, ts, vals)
}

func windowSum(_ *plan.RangeAgg, _ []int64, vals []float64) float64 { return sumOf(vals) }

func windowSumRate(m *plan.RangeAgg, _ []int64, vals []float64) float64 {
	return sumOf(vals) / rangeSeconds(m)
}

func windowAvg(_ *plan.RangeAgg, _ []int64, vals []float64) float64 { return avgOf(vals) }

func windowMin(_ *plan.RangeAgg, _ []int64, vals []float64) float64 {
	return extremeOf(vals, func(a, b float64) bool { return a < b })
}

func windowMax(_ *plan.RangeAgg, _ []int64, vals []float64) float64 {
	return extremeOf(vals, func(a, b float64) bool { return a > b })
}

func windowStdvar(_ *plan.RangeAgg, _ []int64, vals []float64) float64 { return varianceOf(vals) }

func windowStddev(_ *plan.RangeAgg, _ []int64, vals []float64) float64 {
	return math.Sqrt(varianceOf(vals))
}

func windowQuantile(m *plan.RangeAgg, _ []int64, vals []float64) float64 {
	return quantileOf(m.Param, vals)
}

func windowFirst(_ *plan.RangeAgg, _ []int64, vals []float64) float64 { return vals[0] }

func windowLast(_ *plan.RangeAgg, _ []int64, vals []float64) float64 { return vals[len(vals)-1] }

func windowCounterRate(m *plan.RangeAgg, ts []int64, vals []float64) float64 {
	return counterRate(ts, vals, m.Range)
}

func rangeSeconds(m *plan.RangeAgg) float64 { return float64(m.Range) / 1e9 }

func sumOf(vals []float64) float64 {
	var sum float64
	for _, v := range vals {
		sum += v
	}
	return sum
}

// avgOf is Loki's incremental mean, which keeps an infinite mean rather
// than turning it into NaN.
func avgOf(vals []float64) float64 {
	var mean, count float64
	for _, v := range vals {
		count++
		if math.IsInf(mean, 0) {
			if math.IsInf(v, 0) && (mean > 0) == (v > 0) {
				continue
			}
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				continue
			}
		}
		mean += v/count - mean/count
	}
	return mean
}

// extremeOf returns the value better than all others; a NaN is replaced by
// whatever follows it.
func extremeOf(vals []float64, better func(a, b float64) bool) float64 {
	best := vals[0]
	for _, v := range vals {
		if better(v, best) || math.IsNaN(best) {
			best = v
		}
	}
	return best
}

// varianceOf is the population variance by Welford's algorithm.
func varianceOf(vals []float64) float64 {
	var aux, count, mean float64
	for _, v := range vals {
		count++
		delta := v - mean
		mean += delta / count
		aux += delta * (v - mean)
	}
	return aux / count
}

// quantileOf interpolates linearly between the two nearest ranks, NaNs
// sorting first; q outside [0, 1] gives ±Inf.
func quantileOf(q float64, vals []float64) float64 {
	switch {
	case len(vals) == 0:
		return math.NaN()
	case q < 0:
		return math.Inf(-1)
	case q > 1:
		return math.Inf(1)
	}
	sorted := slices.Clone(vals)
	slices.SortFunc(sorted, func(a, b float64) int {
		switch {
		case math.IsNaN(a) && !math.IsNaN(b), a < b:
			return -1
		case math.IsNaN(b) && !math.IsNaN(a), a > b:
			return 1
		}
		return 0
	})
	n := float64(len(sorted))
	rank := q * (n - 1)
	lower := math.Max(0, math.Floor(rank))
	upper := math.Min(n-1, lower+1)
	weight := rank - math.Floor(rank)
	return sorted[int(lower)]*(1-weight) + sorted[int(upper)]*weight
}

// counterRate is Prometheus' extrapolated counter rate as Loki computes
// it. Loki's sample timestamps are nanoseconds while it subtracts the
// range in milliseconds; the arithmetic is kept as is, since it decides
// the values Loki answers.
func counterRate(ts []int64, vals []float64, rangeNs int64) float64 {
	n := len(vals)
	if n < 2 {
		return 0
	}
	rangeStart := ts[0] - rangeNs/1e6
	rangeEnd := ts[n-1]
	result := vals[n-1] - vals[0]
	var last float64
	for _, v := range vals {
		if v < last {
			result += last
		}
		last = v
	}
	toStart := float64(ts[0]-rangeStart) / 1000
	toEnd := float64(rangeEnd-ts[n-1]) / 1000
	sampled := float64(ts[n-1]-ts[0]) / 1000
	avgGap := sampled / float64(n-1)
	if result > 0 && vals[0] >= 0 {
		if toZero := sampled * (vals[0] / result); toZero < toStart {
			toStart = toZero
		}
	}
	threshold := avgGap * 1.1
	interval := sampled
	if toStart < threshold {
		interval += toStart
	} else {
		interval += avgGap / 2
	}
	if toEnd < threshold {
		interval += toEnd
	} else {
		interval += avgGap / 2
	}
	return result * (interval / sampled) / (float64(rangeNs) / 1e9)
}
