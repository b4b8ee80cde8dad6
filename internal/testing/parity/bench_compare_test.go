package parity

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/storage/backend"
)

// The long-range comparison (VLOKI_BENCH_COMPARE=1) runs on the parity
// generators scaled to a week: VLOKI_BENCH_LINES lines (default
// 1,000,000). With LOKI_BENCH_URL set to a fresh Loki (make
// bench-compare), the same data is pushed there and every query is also
// timed against Loki.
const compareSpan = 7 * 24 * time.Hour

var (
	compareOnce             sync.Once
	compareVloki, compareLk string
	compareVL               *backend.Client
	compareErr              error
)

func compareLines() int {
	if n, err := strconv.Atoi(os.Getenv("VLOKI_BENCH_LINES")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

func compareTargets(b *testing.B) (vloki string, vl *backend.Client, loki string) {
	compareOnce.Do(func() {
		ds := Generate(compareLines(), compareSpan)
		if compareVloki, _, _, compareVL, compareErr = serveDataset(ds); compareErr != nil {
			return
		}
		if u := os.Getenv("LOKI_BENCH_URL"); u != "" {
			if compareErr = Push(context.Background(), u, "", ds, 1<<20); compareErr != nil {
				return
			}
			compareErr = waitAll(u, Total(ds))
			compareLk = u
		}
	})
	if compareErr != nil {
		b.Fatal(compareErr)
	}
	return compareVloki, compareVL, compareLk
}

// waitAll polls until Loki counts every pushed line.
func waitAll(base string, total int) error {
	return waitCount(base, `{env=~".+"}`, total)
}

// waitCount polls until Loki counts total lines of the selector over the
// week from Anchor.
func waitCount(base, selector string, total int) error {
	c := Case{Params: map[string]string{"query": `sum(count_over_time(` + selector + `[169h]))`, "time": "@168h"}}
	q, _ := c.Query()
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/loki/api/v1/query?" + q)
		if err == nil {
			var body struct {
				Data struct {
					Result []struct {
						Value [2]any `json:"value"`
					} `json:"result"`
				} `json:"data"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if len(body.Data.Result) == 1 && body.Data.Result[0].Value[1] == strconv.Itoa(total) {
				return nil
			}
		}
		time.Sleep(2 * time.Second)
	}
	return context.DeadlineExceeded
}

func rangeURLSpan(base, query, end, step string) string {
	c := Case{Params: map[string]string{"query": query, "start": "@0s", "end": end, "step": step}}
	q, _ := c.Query()
	return base + "/loki/api/v1/query_range?" + q
}

// compareCase is one LogQL query and the LogsQL asking VictoriaLogs for
// the same work: per-series counts group by stream and by the structured
// metadata (detected_level) that splits Loki's series.
type compareCase struct {
	name, logql, end, step, logsql string
}

func compareCases() []compareCase {
	day, week := mustTime("@0s"), mustTime("@168h")
	dayEnd := mustTime("@24h")
	return []compareCase{
		{"rate_24h", `sum by (app) (rate({namespace="shop"}[5m]))`, "@24h", "300",
			`_time:[` + day + `, ` + dayEnd + `) {namespace="shop"} | stats by (_time:5m, app) count() as c`},
		{"count_7d", `sum by (app) (count_over_time({namespace="shop"}[1h]))`, "@168h", "3600",
			`_time:[` + day + `, ` + week + `) {namespace="shop"} | stats by (_time:1h, app) count() as c`},
		{"count_streams_7d", `count_over_time({namespace="edge"}[1h])`, "@168h", "3600",
			`_time:[` + day + `, ` + week + `) {namespace="edge"} | stats by (_time:1h, _stream, detected_level) count() as c`},
		{"quantile_unwrap_24h", `quantile_over_time(0.99, {app="search", component="query"} | logfmt | unwrap duration(took) [5m]) by (cache)`, "@24h", "300",
			`_time:[` + day + `, ` + dayEnd + `) {app="search", component="query"} | unpack_logfmt fields (took, cache) | stats by (_time:5m, cache) quantile(0.99, took) as q`},
	}
}

// BenchmarkCompare times each long-range query through vloki, the
// equivalent LogsQL on VictoriaLogs directly and, when present, Loki.
func BenchmarkCompare(b *testing.B) {
	if os.Getenv("VLOKI_BENCH_COMPARE") == "" {
		b.Skip("set VLOKI_BENCH_COMPARE=1, or run make bench-compare")
	}
	vloki, vl, loki := compareTargets(b)
	for _, c := range compareCases() {
		b.Run(c.name+"/vloki", func(b *testing.B) {
			u := rangeURLSpan(vloki, c.logql, c.end, c.step)
			for b.Loop() {
				httpGet(b, u)
			}
		})
		b.Run(c.name+"/victorialogs", func(b *testing.B) {
			for b.Loop() {
				vlQuery(b, vl, c.logsql)
			}
		})
		if loki != "" {
			b.Run(c.name+"/loki", func(b *testing.B) {
				u := rangeURLSpan(loki, c.logql, c.end, c.step)
				for b.Loop() {
					httpGet(b, u)
				}
			})
		}
	}
}
