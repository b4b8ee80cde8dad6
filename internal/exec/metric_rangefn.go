package exec

import (
	"math"
	"slices"

	"github.com/vloki/vloki/internal/plan"
)

// rangeValue applies the range function to one window's samples
// (timestamps in ns, values), with Loki's arithmetic.
func rangeValue(m *plan.RangeAgg, ts []int64, vals []float64) float64 {
	seconds := float64(m.Range) / 1e9
	switch m.Op {
	case "count_over_time":
		return float64(len(vals))
	case "rate":
		if m.Unwrap == nil {
			return float64(len(vals)) / seconds
		}
		return sumOf(vals) / seconds
	case "bytes_rate":
		return sumOf(vals) / seconds
	case "avg_over_time":
		return avgOf(vals)
	case "min_over_time":
		return extremeOf(vals, func(a, b float64) bool { return a < b })
	case "max_over_time":
		return extremeOf(vals, func(a, b float64) bool { return a > b })
	case "stdvar_over_time":
		return varianceOf(vals)
	case "stddev_over_time":
		return math.Sqrt(varianceOf(vals))
	case "quantile_over_time":
		return quantileOf(m.Param, vals)
	case "first_over_time":
		return vals[0]
	case "last_over_time":
		return vals[len(vals)-1]
	case "rate_counter":
		return counterRate(ts, vals, m.Range)
	}
	return sumOf(vals) // bytes_over_time, sum_over_time
}

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
