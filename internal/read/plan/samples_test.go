package plan

import (
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// rangeAggOf plans q unmapped and returns its first range aggregation.
func rangeAggOf(t *testing.T, q string, fc *otheragents.Config) *RangeAgg {
	t.Helper()
	e, err := logql.ParseExpr(q)
	if err != nil {
		t.Fatal(err)
	}
	m, err := CompileMetric(QuerierMapping(e.(logql.SampleExpr)), fc)
	if err != nil {
		t.Fatal(err)
	}
	var find func(Metric) *RangeAgg
	find = func(m Metric) *RangeAgg {
		switch m := m.(type) {
		case *RangeAgg:
			return m
		case *QuerierAnswer:
			return find(m.Inner)
		case *VectorAgg:
			return find(m.Inner)
		case *SumOfRange:
			return m.Range
		}
		return nil
	}
	ra := find(m)
	if ra == nil {
		t.Fatalf("%s: no range aggregation", q)
	}
	return ra
}

// TestSamplesKeySharesOnlyTheSameSamples: inputs that differ in anything
// deciding which rows are read or what they become never share kept
// samples; the same input at another range, offset or operation does.
func TestSamplesKeySharesOnlyTheSameSamples(t *testing.T) {
	same := [][2]string{
		{`count_over_time({app="a"}[5m])`, `rate({app="a"}[1h] offset 5m)`},
		{`sum by (x) (count_over_time({app="a"} | json [5m]))`, `sum by (x) (rate({app="a"} | json [1m]))`},
		{`count_over_time({app="a"} | line_format "{{.x}}" [5m])`, `count_over_time({app="a"}[5m])`},
		{`avg_over_time({app="a"} | json | unwrap d [5m])`, `max_over_time({app="a"} | json | unwrap d [10m])`},
	}
	for _, p := range same {
		if a, b := rangeAggOf(t, p[0], nil).SamplesKey(), rangeAggOf(t, p[1], nil).SamplesKey(); a != b || a == "" {
			t.Errorf("%s and %s should share samples: %q, %q", p[0], p[1], a, b)
		}
	}
	differ := [][2]string{
		{`count_over_time({app="a"}[5m])`, `count_over_time({app="b"}[5m])`},                                             // selector
		{`count_over_time({app="a"} |= "x" [5m])`, `count_over_time({app="a"} |= "y" [5m])`},                             // line filter
		{`count_over_time({app="a"} | json [5m])`, `count_over_time({app="a"} | logfmt [5m])`},                           // parser
		{`sum by (x) (count_over_time({app="a"} | json [5m]))`, `sum by (y) (count_over_time({app="a"} | json [5m]))`},   // grouping, hints
		{`sum by (x) (count_over_time({app="a"} | json [5m]))`, `count_over_time({app="a"} | json [5m])`},                // injected grouping
		{`avg_over_time({app="a"} | json | unwrap d [5m])`, `avg_over_time({app="a"} | json | unwrap e [5m])`},           // unwrap label
		{`avg_over_time({app="a"} | json | unwrap d [5m])`, `avg_over_time({app="a"} | json | unwrap duration(d) [5m])`}, // conversion
		{`avg_over_time({app="a"} | json | unwrap d | d > 1 [5m])`, `avg_over_time({app="a"} | json | unwrap d [5m])`},   // post filter
		{`bytes_over_time({app="a"} | line_format "{{.x}}" [5m])`, `bytes_over_time({app="a"}[5m])`},                     // the line measured
		{`count_over_time({app="a"} | json | x="1" [5m])`, `count_over_time({app="a"} | json | x="2" [5m])`},             // early filter
		{`avg_over_time({app="a"} | json | unwrap d [5m]) by (x)`, `avg_over_time({app="a"} | json | unwrap d [5m]) by (y)`},
	}
	for _, p := range differ {
		if a, b := rangeAggOf(t, p[0], nil).SamplesKey(), rangeAggOf(t, p[1], nil).SamplesKey(); a == b {
			t.Errorf("%s and %s share a samples key: %q", p[0], p[1], a)
		}
	}
	// What delete requests hide, and data other agents wrote.
	q := `count_over_time({app="a"}[5m])`
	hidden := rangeAggOf(t, q, nil)
	HideMetric(hidden, logsql.Exact{Field: "_msg", Value: "secret"})
	if hidden.SamplesKey() == rangeAggOf(t, q, nil).SamplesKey() {
		t.Error("a query narrowed by a delete request shares samples with the unnarrowed one")
	}
	if rangeAggOf(t, q, &otheragents.Config{}).SamplesKey() == rangeAggOf(t, q, nil).SamplesKey() {
		t.Error("a query of other agents' data shares samples with one of vloki's own rows")
	}
	if (&RangeAgg{Log: &LogQuery{}}).SamplesKey() != "" {
		t.Error("a range aggregation of unknown source has a samples key")
	}
}
