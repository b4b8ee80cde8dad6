package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/frontend"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
)

// TestSparseStepsMatchWholeSpan checks that range queries whose step is
// several times their range, which read only their windows, answer exactly
// what reading every row of the span answers: VictoriaLogs' buckets (a
// sum, per series) and the rows path (parsers, unwrap, inexact line
// filters), offsets either way, windows in several batches, on every
// backend.
func TestSparseStepsMatchWholeSpan(t *testing.T) {
	byApp := sparseData()
	tn := (&tenant.Resolver{}).Map("sparse")
	queries := []string{ // %[1]s is the range
		`sum by (app) (count_over_time({app=~"w.*"}[%[1]s]))`,
		`sum by (level) (count_over_time({app=~"w.*"} | drop __error__ [%[1]s]))`,
		`count_over_time({app=~"w.*"}[%[1]s] offset 3m)`,
		`sum(bytes_over_time({app=~"w.*"} |= "x" [%[1]s] offset -5m))`,
		`sum by (app) (rate({app=~"w.*"} |~ "\\bqueen\\b" [%[1]s]))`,
		`sum by (app) (sum_over_time({app=~"w.*"} | logfmt | unwrap latency [%[1]s]))`,
		`quantile_over_time(0.9, {app=~"w.*"} | logfmt | unwrap latency [%[1]s]) by (app)`,
		`avg_over_time({app=~"w.*"} | logfmt | unwrap latency [%[1]s] offset 1m) by (app)`,
		`first_over_time({app=~"w.*"} | logfmt | unwrap latency [%[1]s]) by (app)`,
		`last_over_time({app=~"w.*"} | logfmt | unwrap latency [%[1]s]) by (app)`,
		`max_over_time({app=~"w.*"} | logfmt | unwrap latency [%[1]s])`,
		`sum by (app) (rate_counter({app=~"w.*"} | logfmt | unwrap latency [%[1]s]))`,
		`stddev_over_time({app=~"w.*"} | logfmt | unwrap latency [%[1]s]) by (app)`,
		`absent_over_time({app="w0"} |= "queen" [%[1]s])`,
		`topk(2, sum by (app) (count_over_time({app=~"w.*"} | json [%[1]s])))`,
	}
	// Steps reading the windows as rows only (4 ranges) and as buckets too
	// (8 ranges and more); [5s] at 20 s and 41 s makes 540 and 264
	// windows, read in several batches.
	cases := []struct {
		rng  string
		step time.Duration
	}{{"1m", 4 * time.Minute}, {"1m", 8 * time.Minute}, {"1m", time.Hour}, {"5s", 20 * time.Second}, {"5s", 41 * time.Second}}
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			for app, es := range byApp {
				tg.pushJSON(t, "sparse", jsonPush(map[string]string{"app": app}, es...))
			}
			// Structured metadata: per-series buckets group by it.
			tg.pushJSON(t, "sparse", withMetadata(jsonPush(map[string]string{"app": "w3"}, byApp["w1"][:300]...), "zone", "z1", "z2"))
			for _, q := range queries {
				for _, c := range cases {
					for _, shift := range []time.Duration{0, 17 * time.Second} {
						compareSparse(t, tg.vl, tn, fmt.Sprintf(q, c.rng), c.step, shift)
					}
				}
			}
		})
	}
}

// sparseData is three apps' entries over three hours, a tenth of them on
// whole minutes (the windows' edges), with words, logfmt latencies and
// JSON levels.
func sparseData() map[string][]entry {
	r := rand.New(rand.NewPCG(7, 8))
	byApp := map[string][]entry{}
	for i := range 3000 {
		app := fmt.Sprintf("w%d", r.IntN(3))
		ts := base.Add(time.Duration(r.Int64N(int64(3 * time.Hour))))
		if i%10 == 0 {
			ts = ts.Truncate(time.Minute)
		}
		line := []string{
			fmt.Sprintf("level=info latency=%d msg=queen", r.IntN(500)),
			fmt.Sprintf("level=warn latency=%d.%d x", r.IntN(50), r.IntN(10)),
			`{"level":"error","msg":"queens x"}`,
			"",
		}[r.IntN(4)]
		byApp[app] = append(byApp[app], entry{ns(ts), line})
	}
	return byApp
}

// compareSparse runs the query over three hours at step, reading only
// the windows and reading the whole span, and requires equal answers.
func compareSparse(t *testing.T, c *backend.Client, tn tenant.ID, query string, step, shift time.Duration) {
	t.Helper()
	sparse, whole := compileTwice(t, query)
	req := metric.Request{Start: base.Add(shift).UnixNano(), End: base.Add(3*time.Hour + shift).UnixNano(), Step: step.Nanoseconds()}
	req.Query = sparse
	a, errA := metric.Run(context.Background(), c, tn, req)
	req.Query = whole
	b, errB := metric.Run(context.Background(), c, tn, req)
	if fmt.Sprint(errA) != fmt.Sprint(errB) {
		t.Fatalf("%s step %s: errors differ: %v vs %v", query, step, errA, errB)
	}
	// Printed, floats are exact (shortest round-trip form) and NaNs equal.
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("%s step %s shift %s: windows only\n%v\nwhole span\n%v", query, step, shift, a, b)
	}
	if errA == nil && len(a.Series) == 0 {
		t.Fatalf("%s step %s: no series: the comparison says nothing", query, step)
	}
}

// compileTwice plans the query twice, the second reading whole spans.
func compileTwice(t *testing.T, query string) (sparse, whole plan.Metric) {
	t.Helper()
	e, err := logql.ParseExpr(query)
	if err != nil {
		t.Fatal(err)
	}
	if sparse, err = plan.CompileMetric(frontend.Shard(e.(logql.SampleExpr)), nil); err != nil {
		t.Fatal(err)
	}
	if whole, err = plan.CompileMetric(frontend.Shard(e.(logql.SampleExpr)), nil); err != nil {
		t.Fatal(err)
	}
	readWholeSpans(whole)
	return sparse, whole
}

// readWholeSpans marks every range aggregation of m to read its whole span.
func readWholeSpans(m plan.Metric) {
	switch m := m.(type) {
	case *plan.RangeAgg:
		m.WholeSpan = true
	case *plan.SumOfRange:
		m.Range.WholeSpan = true
	case *plan.VectorAgg:
		readWholeSpans(m.Inner)
	case *plan.QuerierAnswer:
		readWholeSpans(m.Inner)
	case *plan.LabelReplace:
		readWholeSpans(m.Inner)
	case *plan.BinOp:
		readWholeSpans(m.LHS)
		readWholeSpans(m.RHS)
	}
}
