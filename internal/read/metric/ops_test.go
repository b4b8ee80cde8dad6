package metric

import (
	"fmt"
	"math"
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/plan"
)

// TestEveryOpHasAnEvaluator fails for an operator logql registers
// without a row here: every range aggregation, every vector aggregation
// Loki runs, every set operator.
func TestEveryOpHasAnEvaluator(t *testing.T) {
	for _, op := range logql.RangeOps() {
		if rangeEvals[op].window == nil {
			t.Errorf("%s: no window function in rangeEvals", op)
		}
	}
	for _, op := range logql.VectorOps() {
		row, ok := vectorEvals[op]
		if runs := op.Refusal() == nil; runs != (ok && row.fold != nil && row.result != nil) {
			t.Errorf("%s: Loki runs it: %v; row in vectorEvals: %v", op, runs, ok)
		}
	}
	for _, op := range logql.BinaryOps() {
		if _, ok := setOps[op]; ok != op.IsSet() {
			t.Errorf("%s: set operator %v, in setOps %v", op, op.IsSet(), ok)
		}
	}
	if len(rangeEvals) != len(logql.RangeOps()) {
		t.Errorf("rangeEvals has rows for operators logql does not register")
	}
}

// TestBucketsMatchWindows checks that where plan pushes a range
// aggregation down to VictoriaLogs' buckets, their count and line bytes
// give what the window function gives on the rows (each sample a line's
// length).
func TestBucketsMatchWindows(t *testing.T) {
	lines := []float64{12, 0, 7, 30}
	ts := []int64{1, 2, 3, 4}
	pushed := 0
	for _, op := range logql.RangeOps() {
		if !plan.Bucketable(op) {
			continue
		}
		pushed++
		m := &plan.RangeAgg{Op: op, Range: 5e9}
		if got, want := m.WindowFromBuckets()(int64(len(lines)), 49), rangeEvals[m.Op].window(m, ts, lines); got != want {
			t.Errorf("%s: buckets give %v, rows %v", op, got, want)
		}
	}
	if pushed == 0 {
		t.Error("no range aggregation is pushed down")
	}
}

// TestVectorAggregations aggregates one group with every vector
// aggregation vloki runs.
func TestVectorAggregations(t *testing.T) {
	in := []sample{
		{labels: lokidata.Labels{{Name: "s", Value: "a"}}, v: 1},
		{labels: lokidata.Labels{{Name: "s", Value: "b"}}, v: 3},
		{labels: lokidata.Labels{{Name: "s", Value: "c"}}, v: 2},
	}
	want := map[logql.VectorOp]string{
		logql.OpSum:      "{}=6",
		logql.OpAvg:      "{}=2",
		logql.OpMin:      "{}=1",
		logql.OpMax:      "{}=3",
		logql.OpCount:    "{}=3",
		logql.OpStdvar:   fmt.Sprintf("{}=%v", 2.0/3),
		logql.OpStddev:   fmt.Sprintf("{}=%v", math.Sqrt(2.0/3)),
		logql.OpTopK:     `{s="b"}=3 {s="c"}=2`,
		logql.OpBottomK:  `{s="a"}=1 {s="c"}=2`,
		logql.OpSort:     `{s="a"}=1 {s="c"}=2 {s="b"}=3`,
		logql.OpSortDesc: `{s="b"}=3 {s="c"}=2 {s="a"}=1`,
	}
	for op := range vectorEvals {
		out, _ := aggregate(&plan.VectorAgg{Op: op, Param: 2}, in)
		got := ""
		for i, s := range out {
			if i > 0 {
				got += " "
			}
			got += fmt.Sprintf("%s=%v", s.labels, s.v)
		}
		if got != want[op] {
			t.Errorf("%s: %s, want %s", op, got, want[op])
		}
	}
}

// TestSetOperators matches on every label.
func TestSetOperators(t *testing.T) {
	ls := func(v string) lokidata.Labels { return lokidata.Labels{{Name: "s", Value: v}} }
	lhs := []sample{{labels: ls("a"), v: 1}, {labels: ls("b"), v: 2}}
	rhs := []sample{{labels: ls("b"), v: 20}, {labels: ls("c"), v: 30}}
	want := map[logql.BinaryOp]string{
		logql.OpAnd:    `{s="b"}=2`,
		logql.OpOr:     `{s="a"}=1 {s="b"}=2 {s="c"}=30`,
		logql.OpUnless: `{s="a"}=1`,
	}
	for op, set := range setOps {
		got := ""
		for i, s := range set(&plan.BinOp{Op: op}, lhs, rhs) {
			if i > 0 {
				got += " "
			}
			got += fmt.Sprintf("%s=%v", s.labels, s.v)
		}
		if got != want[op] {
			t.Errorf("%s: %s, want %s", op, got, want[op])
		}
	}
}
