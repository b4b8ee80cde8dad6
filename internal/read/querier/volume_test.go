package querier

import (
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
)

// TestTopVolumesOrderAndShape: series by first value, descending, then
// by name; the limit cuts after ordering; the answer is a matrix when any
// series found has several points, even one the limit cut.
func TestTopVolumesOrderAndShape(t *testing.T) {
	point := func(v ...float64) []lokidata.Point {
		var out []lokidata.Point
		for i, x := range v {
			out = append(out, lokidata.Point{TimestampMs: int64(i), Value: x})
		}
		return out
	}
	series := map[string]*lokidata.Series{
		`{app="b"}`: {Metric: lokidata.Labels{{Name: "app", Value: "b"}}, Points: point(5)},
		`{app="a"}`: {Metric: lokidata.Labels{{Name: "app", Value: "a"}}, Points: point(5)},
		`{app="c"}`: {Metric: lokidata.Labels{{Name: "app", Value: "c"}}, Points: point(9)},
		`{app="d"}`: {Metric: lokidata.Labels{{Name: "app", Value: "d"}}, Points: point(1, 2)},
	}
	got := topVolumes(series, 3)
	var names []string
	for _, s := range got.Series {
		v, _ := s.Metric.Get("app")
		names = append(names, v)
	}
	if want := []string{"c", "a", "b"}; len(names) != 3 || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Fatalf("order %v, want %v", names, want)
	}
	if !got.Matrix {
		t.Fatal("a cut series with several points makes a matrix")
	}
	delete(series, `{app="d"}`)
	if topVolumes(series, 3).Matrix {
		t.Fatal("one point per series makes a vector")
	}
}
