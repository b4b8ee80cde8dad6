package metric

import (
	"slices"
	"testing"

	"github.com/vloki/vloki/internal/acked/streamindex"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/plan"
)

// A window (t-offset-range, t-offset] leaves out an entry at its start
// and takes one at its end, as the rows path does.
func TestIndexedWindowsAreOpenAtTheirStart(t *testing.T) {
	ev := &evaluator{steps: []int64{100, 110, 120}}
	m := &plan.RangeAgg{Op: logql.OpCountOverTime, Range: 20, Offset: 5}
	g := &indexedGroup{counts: make([]int64, 3), bytes: make([]int64, 3)}
	// windows: (75, 95], (85, 105], (95, 115]
	var lines []streamindex.Line
	for i, ts := range []int64{75, 80, 95, 96, 105, 115, 116} {
		lines = append(lines, streamindex.Line{TS: ts, Bytes: 1 << i})
	}
	ev.addWindows(m, g, lines)
	if want := []int64{2, 3, 3}; !slices.Equal(g.counts, want) {
		t.Errorf("counts %v, want %v", g.counts, want)
	}
	if want := []int64{6, 28, 56}; !slices.Equal(g.bytes, want) {
		t.Errorf("bytes %v, want %v", g.bytes, want)
	}
}

func TestMetadataUnseen(t *testing.T) {
	md := []string{"detected_level", "trace_id"}
	for _, c := range []struct {
		groups           []string
		without, noLabel bool
		want             bool
	}{
		{nil, false, true, true},              // by ()
		{[]string{"app"}, false, false, true}, // by (app)
		{[]string{"app", "trace_id"}, false, false, false},
		{nil, false, false, false},                            // no grouping: every label
		{[]string{"trace_id_extracted"}, false, false, false}, // metadata named like a stream label
		{[]string{"detected_level", "trace_id", "x"}, true, false, false},
	} {
		if got := metadataUnseen(md, c.groups, c.without, c.noLabel); got != c.want {
			t.Errorf("%v without=%v noLabels=%v: %v, want %v", c.groups, c.without, c.noLabel, got, c.want)
		}
	}
	if !metadataUnseen(nil, nil, false, false) {
		t.Error("a stream without metadata fits any grouping")
	}
}
