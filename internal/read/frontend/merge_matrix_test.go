package frontend

import (
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/metric"
)

func points(ms ...int64) []lokidata.Point {
	var out []lokidata.Point
	for _, t := range ms {
		out = append(out, lokidata.Point{TimestampMs: t, Value: float64(t)})
	}
	return out
}

func times(ps []lokidata.Point) []int64 {
	var out []int64
	for _, p := range ps {
		out = append(out, p.TimestampMs)
	}
	return out
}

// TestMergeMatrixSplitsDropsPointsOfALateSortedAnswer replays the case
// Loki's frontend produces with overlapping step pairs: the first answer's
// first series starts one step late, ties with its successor, sorts after
// it (backward requests come latest first) and loses its points.
func TestMergeMatrixSplitsDropsPointsOfALateSortedAnswer(t *testing.T) {
	a := lokidata.Labels{{Name: "app", Value: "a"}}
	b := lokidata.Labels{{Name: "app", Value: "b"}}
	series := []lokidata.Series{
		{Metric: a, Points: points(2000, 3000)}, // no point at 1000: pair [1000,2000] starts at 2000
		{Metric: b, Points: points(1000, 2000, 3000)},
	}
	splits := []metric.SplitRange{{Start: 1000e6, End: 2000e6}, {Start: 2000e6, End: 3000e6}}
	got := mergeMatrixSplits(series, splits, true)
	if len(got) != 2 {
		t.Fatalf("%d series", len(got))
	}
	// Both answers start at 2000; the backward order keeps [2000,3000]
	// first, so b's point at 1000 (and the repeated 2000) is dropped.
	if ts := times(got[1].Points); len(ts) != 2 || ts[0] != 2000 || ts[1] != 3000 {
		t.Errorf("b: %v", ts)
	}
	// Forward: chronological, nothing lost.
	got = mergeMatrixSplits(series, splits, false)
	if ts := times(got[1].Points); len(ts) != 3 {
		t.Errorf("forward b: %v", ts)
	}
}

func TestMergeMatrixSplitsSingleSplitUntouched(t *testing.T) {
	series := []lokidata.Series{{Metric: lokidata.Labels{}, Points: points(1000, 2000)}}
	if got := mergeMatrixSplits(series, []metric.SplitRange{{Start: 1000e6, End: 2000e6}}, true); len(got[0].Points) != 2 {
		t.Fatalf("%v", got)
	}
}
