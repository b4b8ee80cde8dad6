package exec

import (
	"math"
	"testing"

	"github.com/vloki/vloki/internal/plan"
)

func TestRangeFunctions(t *testing.T) {
	vals := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	ts := []int64{1, 2, 3, 4, 5, 6, 7, 8}
	cases := []struct {
		op    string
		param float64
		want  float64
	}{
		{"sum_over_time", 0, 40},
		{"avg_over_time", 0, 5},
		{"min_over_time", 0, 2},
		{"max_over_time", 0, 9},
		{"stdvar_over_time", 0, 4},
		{"stddev_over_time", 0, 2},
		{"first_over_time", 0, 2},
		{"last_over_time", 0, 9},
		{"quantile_over_time", 0.5, 4.5},
		{"quantile_over_time", 0.25, 4},
		{"quantile_over_time", -1, math.Inf(-1)},
		{"quantile_over_time", 2, math.Inf(1)},
		{"rate", 0, 4},
		{"count_over_time", 0, 8},
	}
	for _, c := range cases {
		m := &plan.RangeAgg{Op: c.op, Param: c.param, Range: 10e9, Unwrap: &plan.Unwrap{Label: "x"}}
		if got := rangeValue(m, ts, vals); got != c.want {
			t.Errorf("%s(%v) = %v, want %v", c.op, c.param, got, c.want)
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

func TestConvertUnwrapped(t *testing.T) {
	cases := []struct {
		conv, raw string
		want      float64
		err       string
	}{
		{"", "1.5", 1.5, ""},
		{"", "GET", 0, `strconv.ParseFloat: parsing "GET": invalid syntax`},
		{"duration", "1m30s", 90, ""},
		{"duration_seconds", "250ms", 0.25, ""},
		{"duration", "5", 0, `time: missing unit in duration "5"`},
		{"bytes", "1.5KiB", 1536, ""},
		{"bytes", "10 MB", 10e6, ""},
	}
	for _, c := range cases {
		got, err := convertUnwrapped(c.conv, c.raw)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != c.want || msg != c.err {
			t.Errorf("%s(%q) = %v, %q; want %v, %q", c.conv, c.raw, got, msg, c.want, c.err)
		}
	}
}
