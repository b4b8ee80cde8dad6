package integration

import (
	"context"
	"fmt"
	"math"
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

// TestSumOfRangePushdownMatchesRows checks that sums computed from
// VictoriaLogs' time buckets equal the same sums computed from raw rows,
// over ranges, steps and offsets that do and do not divide each other.
func TestSumOfRangePushdownMatchesRows(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var byApp = map[string][]entry{}
	for i := 0; i < 2000; i++ {
		app := fmt.Sprintf("p%d", r.IntN(3))
		ts := base.Add(time.Duration(r.Int64N(int64(3 * time.Hour))))
		if i%10 == 0 {
			ts = ts.Truncate(time.Minute) // exactly on step boundaries
		}
		line := []string{"", "error x", "level=warn y", "info zz"}[r.IntN(4)]
		byApp[app] = append(byApp[app], entry{ns(ts), line})
	}
	tenantPair := (&tenant.Resolver{}).Map("pd")
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			for app, es := range byApp {
				tg.pushJSON(t, "pd", jsonPush(map[string]string{"app": app}, es...))
			}
			for _, q := range []string{
				`sum by (detected_level) (count_over_time({app=~"p.*"}[5m]))`,
				`sum(bytes_over_time({app=~"p.*"} |= "x" [7m] offset 3m))`,
				`sum by (app) (count_over_time({app=~"p.*"} != "error" [1h]))`,
				`sum by (app, detected_level) (rate({app=~"p.*"} |~ "^$|zz" [90s]))`,
				`sum by (app) (count_over_time({app=~"p.*"} | detected_level="warn" or app="p1" [5m]))`,
				// Parsers that extract nothing (no grouping, no filter) keep every row.
				`sum(count_over_time({app=~"p.*"} | json [5m]))`,
				`sum(bytes_rate({app=~"p.*"} |= "x" | logfmt | regexp "(?P<w>\\w+)" [7m]))`,
			} {
				for _, stepRange := range [][3]time.Duration{{time.Minute, 0, 0}, {5 * time.Minute, 0, 17 * time.Second}, {7 * time.Minute, 0, 0}, {0, 0, 0}} {
					compareSumOfRange(t, tg.vl, tenantPair, q, stepRange[0], stepRange[2])
				}
			}
		})
	}
}

func compareSumOfRange(t *testing.T, c *backend.Client, tn tenant.ID, query string, step, shift time.Duration) {
	t.Helper()
	e, err := logql.ParseExpr(query)
	if err != nil {
		t.Fatal(err)
	}
	m, err := plan.CompileMetric(frontend.Shard(e.(logql.SampleExpr)), nil)
	if err != nil {
		t.Fatal(err)
	}
	pushed, ok := plan.Unmarked(m).(*plan.SumOfRange)
	if !ok {
		t.Fatalf("%s not pushed down: %T", query, m)
	}
	rows := *pushed.Range
	rows.FromRows = true
	rows.InjectSumGrouping(&logql.Grouping{Groups: pushed.By})
	raw := &plan.VectorAgg{Op: logql.OpSum, Grouping: logql.Grouping{Groups: pushed.By}, Inner: &rows}
	compareEvaluations(t, c, tn, query, step, shift, pushed, raw)
}

// TestStreamBucketsMatchRows checks that range aggregations computed per
// series from VictoriaLogs' buckets (stream and structured metadata)
// equal the same computed from raw rows.
func TestStreamBucketsMatchRows(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var byApp = map[string][]entry{}
	for i := 0; i < 1500; i++ {
		app := fmt.Sprintf("s%d", r.IntN(3))
		ts := base.Add(time.Duration(r.Int64N(int64(3 * time.Hour))))
		if i%10 == 0 {
			ts = ts.Truncate(time.Minute)
		}
		line := []string{"", "error x", "level=warn y", "info zz", `{"level":"debug"}`}[r.IntN(5)]
		byApp[app] = append(byApp[app], entry{ns(ts), line})
	}
	tenantPair := (&tenant.Resolver{}).Map("sb")
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			for app, es := range byApp {
				tg.pushJSON(t, "sb", jsonPush(map[string]string{"app": app}, es...))
			}
			// zone is a stream label of s3 and structured metadata of s4's
			// entries: the pushed grouping must keep it apart.
			tg.pushJSON(t, "sb", jsonPush(map[string]string{"app": "s3", "zone": "z1"}, byApp["s0"][:50]...))
			tg.pushJSON(t, "sb", withMetadata(jsonPush(map[string]string{"app": "s4"}, byApp["s1"][:60]...), "zone", "z1", "z2"))
			for _, q := range []string{
				`count_over_time({app=~"s.*"}[5m])`,
				`bytes_over_time({app=~"s.*"} |= "x" [7m] offset 3m)`,
				`rate({app=~"s.*"} != "error" [1h])`,
				`bytes_rate({app=~"s.*"} | detected_level="warn" or app="s1" [90s])`,
			} {
				for _, stepShift := range [][2]time.Duration{{time.Minute, 0}, {5 * time.Minute, 17 * time.Second}, {7 * time.Minute, 0}, {0, 0}} {
					e, err := logql.ParseExpr(q)
					if err != nil {
						t.Fatal(err)
					}
					m, err := plan.CompileMetric(frontend.Shard(e.(logql.SampleExpr)), nil)
					if err != nil {
						t.Fatal(err)
					}
					ra := plan.Unmarked(m).(*plan.RangeAgg)
					if !ra.StreamBucketable() {
						t.Fatalf("%s is not bucketed", q)
					}
					rows := *ra
					rows.FromRows = true
					compareEvaluations(t, tg.vl, tenantPair, q, stepShift[0], stepShift[1], ra, &rows)
				}
			}
		})
	}
}

// withMetadata gives the entries of a jsonPush body structured metadata
// name, cycling through values.
func withMetadata(body map[string]any, name string, values ...string) map[string]any {
	stream := body["streams"].([]any)[0].(map[string]any)
	var out [][]any
	for i, v := range stream["values"].([][]string) {
		out = append(out, []any{v[0], v[1], map[string]string{name: values[i%len(values)]}})
	}
	stream["values"] = out
	return body
}

// compareEvaluations runs two plans of one query and requires the same
// series and values.
func compareEvaluations(t *testing.T, c *backend.Client, tn tenant.ID, query string, step, shift time.Duration, pushed, raw plan.Metric) {
	t.Helper()
	req := metric.Request{Start: base.Add(shift).UnixNano(), End: base.Add(3*time.Hour + shift).UnixNano(), Step: step.Nanoseconds()}
	if step == 0 {
		req.Start = base.Add(2 * time.Hour).UnixNano()
		req.End = req.Start
	}
	req.Query = pushed
	a, err := metric.Run(context.Background(), c, tn, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Query = raw
	b, err := metric.Run(context.Background(), c, tn, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Series) != len(b.Series) {
		t.Fatalf("%s step %s: %d series pushed down, %d from rows", query, step, len(a.Series), len(b.Series))
	}
	for i := range a.Series {
		sa, sb := a.Series[i], b.Series[i]
		if sa.Metric.String() != sb.Metric.String() || len(sa.Points) != len(sb.Points) {
			t.Fatalf("%s step %s: series %d: %s (%d points) vs %s (%d points)", query, step, i, sa.Metric, len(sa.Points), sb.Metric, len(sb.Points))
		}
		for j := range sa.Points {
			pa, pb := sa.Points[j], sb.Points[j]
			if pa.TimestampMs != pb.TimestampMs || math.Abs(pa.Value-pb.Value) > 1e-9*math.Max(1, math.Abs(pb.Value)) {
				t.Fatalf("%s step %s: %s point %d: %v vs %v", query, step, sa.Metric, j, pa, pb)
			}
		}
	}
}
