package frontend

import (
	"sort"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/metric"
)

// mergeMatrix is a range query's answer as the frontend assembles it from
// its sub-queries' (the engine's answer holds every sub-query's points in
// one matrix, series in Prometheus' labels.Compare order, a querier's).
// Series of a split query come ordered by their label string.
func mergeMatrix(res *metric.Result, splits []metric.SplitRange, backward bool) {
	if res.Kind != metric.Matrix || len(splits) < 2 {
		return
	}
	series := mergeMatrixSplits(res.Series, splits, backward)
	sort.Slice(series, func(i, j int) bool { return series[i].Metric.String() < series[j].Metric.String() })
	res.Series = series
}

// mergeMatrixSplits replays how Loki's frontend assembles a range query from
// its sub-queries' answers (prometheusCodec.MergeResponse): the answers,
// in request order (latest first for a backward query), are sorted by the
// first point of their first series (labels.Compare order) with Go's
// unstable sort, then appended series by series, each answer keeping only
// the points after the last one already there. Sub-queries of a step at
// least the split interval overlap by one step, and an answer whose first
// series starts one step late can then sort after its successor and lose
// its points; Loki's clients see that, so vloki answers it too.
func mergeMatrixSplits(series []lokidata.Series, splits []metric.SplitRange, backward bool) []lokidata.Series {
	if len(splits) < 2 {
		return series
	}
	byLabels := make([]int, len(series))
	for i := range byLabels {
		byLabels[i] = i
	}
	sort.SliceStable(byLabels, func(a, b int) bool {
		return lokidata.Compare(series[byLabels[a]].Metric, series[byLabels[b]].Metric) < 0
	})
	answers := make([]splitAnswer, len(splits))
	for k, sp := range splits {
		answers[k] = splitAnswer{split: sp, minTime: firstPointMs(series, byLabels, sp)}
	}
	if backward {
		for i, j := 0, len(answers)-1; i < j; i, j = i+1, j-1 {
			answers[i], answers[j] = answers[j], answers[i]
		}
	}
	sort.Sort(byFirstTime(answers))
	if chronological(answers) {
		// Merged in time order, the answers give back every point once.
		return series
	}
	out := make([]lokidata.Series, 0, len(series))
	for _, s := range series {
		var merged []lokidata.Point
		for _, a := range answers {
			merged = appendAfter(merged, pointsIn(s.Points, a.split))
		}
		if len(merged) > 0 {
			out = append(out, lokidata.Series{Metric: s.Metric, Points: merged})
		}
	}
	return out
}

type splitAnswer struct {
	split   metric.SplitRange
	minTime int64 // ms; -1 for an answer without series
}

// byFirstTime is Loki's ordering of sub-query answers; it must stay a
// sort.Interface so sort.Sort permutes ties exactly as Loki's does.
type byFirstTime []splitAnswer

func (a byFirstTime) Len() int           { return len(a) }
func (a byFirstTime) Swap(i, j int)      { a[i], a[j] = a[j], a[i] }
func (a byFirstTime) Less(i, j int) bool { return a[i].minTime < a[j].minTime }

func chronological(answers []splitAnswer) bool {
	for i := 1; i < len(answers); i++ {
		if answers[i].split.Start < answers[i-1].split.Start {
			return false
		}
	}
	return true
}

// firstPointMs is the first point of the first series (in order) with a
// point in the split, or -1.
func firstPointMs(series []lokidata.Series, order []int, sp metric.SplitRange) int64 {
	for _, i := range order {
		if ps := pointsIn(series[i].Points, sp); len(ps) > 0 {
			return ps[0].TimestampMs
		}
	}
	return -1
}

func pointsIn(ps []lokidata.Point, sp metric.SplitRange) []lokidata.Point {
	lo := sort.Search(len(ps), func(i int) bool { return ps[i].TimestampMs >= ms(sp.Start) })
	hi := sort.Search(len(ps), func(i int) bool { return ps[i].TimestampMs > ms(sp.End) })
	return ps[lo:hi]
}

// appendAfter adds the points later than the last one in dst, as Loki's
// matrixMerge does.
func appendAfter(dst, ps []lokidata.Point) []lokidata.Point {
	if len(dst) > 0 && len(ps) > 0 {
		last := dst[len(dst)-1].TimestampMs
		k := sort.Search(len(ps), func(i int) bool { return ps[i].TimestampMs > last })
		ps = ps[k:]
	}
	return append(dst, ps...)
}

// ms is Unix ns in ms.
func ms(ns int64) int64 { return ns / 1e6 }
