package metric

import (
	"math"
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/plan"
)

// TestRangeFunctions evaluates every range aggregation over one window:
// a missing or wrong function fails here.
func TestRangeFunctions(t *testing.T) {
	vals := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	ts := []int64{1, 2, 3, 4, 5, 6, 7, 8}
	cases := []struct {
		op     logql.RangeOp
		param  float64
		unwrap bool
		want   float64
	}{
		{logql.OpCountOverTime, 0, false, 8},
		{logql.OpRate, 0, false, 0.8},
		{logql.OpRate, 0, true, 4},
		{logql.OpBytesOverTime, 0, false, 40},
		{logql.OpBytesRate, 0, false, 4},
		{logql.OpSumOverTime, 0, true, 40},
		{logql.OpAvgOverTime, 0, true, 5},
		{logql.OpMinOverTime, 0, true, 2},
		{logql.OpMaxOverTime, 0, true, 9},
		{logql.OpStdvarOverTime, 0, true, 4},
		{logql.OpStddevOverTime, 0, true, 2},
		{logql.OpFirstOverTime, 0, true, 2},
		{logql.OpLastOverTime, 0, true, 9},
		{logql.OpQuantileOverTime, 0.5, true, 4.5},
		{logql.OpQuantileOverTime, 0.25, true, 4},
		{logql.OpQuantileOverTime, -1, true, math.Inf(-1)},
		{logql.OpQuantileOverTime, 2, true, math.Inf(1)},
		{logql.OpRateCounter, 0, true, counterRate(ts, vals, 10e9)},
		{logql.OpAbsentOverTime, 0, false, 40}, // replaced by absentSteps
	}
	tested := map[logql.RangeOp]bool{}
	for _, c := range cases {
		m := &plan.RangeAgg{Op: c.op, Param: c.param, Range: 10e9}
		if c.unwrap {
			m.Unwrap = &plan.Unwrap{Label: "x"}
		}
		if got := rangeEvals[m.Op].window(m, ts, vals); got != c.want {
			t.Errorf("%s(%v) = %v, want %v", c.op, c.param, got, c.want)
		}
		tested[c.op] = true
	}
	for _, op := range logql.RangeOps() {
		if !tested[op] {
			t.Errorf("%s: no case", op)
		}
	}
}

func TestRangeFunctionSpecialValues(t *testing.T) {
	if got := avgOf([]float64{math.Inf(1), 3, math.Inf(1)}); !math.IsInf(got, 1) {
		t.Errorf("avg keeps an infinite mean, got %v", got)
	}
	if got := extremeOf([]float64{math.NaN(), 3, 1}, func(a, b float64) bool { return a > b }); got != 3 {
		t.Errorf("max skips a leading NaN, got %v", got)
	}
	if got := quantileOf(0, []float64{3, math.NaN(), 1}); !math.IsNaN(got) {
		t.Errorf("NaN sorts first, got %v", got)
	}
}

func TestCounterRate(t *testing.T) {
	// One sample: no rate.
	if got := counterRate([]int64{1e9}, []float64{5}, 60e9); got != 0 {
		t.Errorf("single sample rate = %v", got)
	}
	// A reset adds the value before it: 10 -> 2 counts 10 + (2 - 0)... the
	// increase is last - first + 10.
	noReset := counterRate([]int64{1e9, 2e9, 3e9}, []float64{1, 5, 10}, 60e9)
	reset := counterRate([]int64{1e9, 2e9, 3e9}, []float64{1, 10, 10 + 9}, 60e9)
	withReset := counterRate([]int64{1e9, 2e9, 3e9}, []float64{1, 10, 9}, 60e9)
	if noReset <= 0 || withReset != reset {
		t.Errorf("rates: no reset %v, reset %v, want %v", noReset, withReset, reset)
	}
}
