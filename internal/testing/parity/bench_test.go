package parity

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

var (
	benchOnce                     sync.Once
	benchURL, warmURL, indexedURL string
	benchVL                       *backend.Client
	benchErr                      error
)

// benchTarget is vloki without results cache or coalescing (every request
// worked out) over the embedded engine holding the parity dataset, shared
// by the benchmarks of this package.
func benchTarget(b *testing.B) (string, *backend.Client) {
	benchOnce.Do(func() {
		benchURL, warmURL, indexedURL, benchVL, benchErr = serveDataset(Generate(DefaultLines, DefaultSpan))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchURL, benchVL
}

// warmTarget is vloki with its default frontend over the same engine.
func warmTarget(b *testing.B) string {
	benchTarget(b)
	return warmURL
}

// serveDataset starts vloki cold, with its default frontend, and cold
// with the stream index that saw ds pushed, over one fresh embedded engine.
func serveDataset(ds []Stream) (cold, warm, indexed string, c *backend.Client, err error) {
	c, err = vltest.Embedded()
	if err != nil {
		return "", "", "", nil, err
	}
	serve := func(cfg config.Config) (string, error) {
		app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), c, "embedded", func() {})
		if err != nil {
			return "", err
		}
		return newServer(app.Handler()).URL, nil
	}
	coldCfg := config.Default()
	coldCfg.Frontend.CacheResults, coldCfg.Frontend.Coalesce = false, false
	indexCfg := coldCfg
	indexCfg.Backend.SoleWriter = "on"
	indexCfg.Ingester.QueryStoreMaxLookBackPeriod = -1 // as parity/loki-config.yaml
	if cold, err = serve(coldCfg); err != nil {
		return "", "", "", nil, err
	}
	if warm, err = serve(config.Default()); err != nil {
		return "", "", "", nil, err
	}
	if indexed, err = serve(indexCfg); err != nil {
		return "", "", "", nil, err
	}
	if err := Push(context.Background(), indexed, "", ds, 1<<20); err != nil {
		return "", "", "", nil, err
	}
	return cold, warm, indexed, c, c.Flush(context.Background())
}

func httpGet(b *testing.B, u string) {
	resp, err := http.Get(u)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("status %d for %s", resp.StatusCode, u)
	}
}

func vlQuery(b *testing.B, c *backend.Client, q string) {
	err := c.Query(context.Background(), tenant.ID{}, backend.QueryRequest{Query: q}, func(*backend.Row) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
}

func rangeURL(base, query, step string, limit string) string {
	c := Case{Params: map[string]string{"query": query, "start": "@0s", "end": "@24h", "limit": limit}}
	if step != "" {
		c.Params["step"] = step
	}
	q, _ := c.Query()
	v, _ := url.ParseQuery(q)
	return base + "/loki/api/v1/query_range?" + v.Encode()
}

// BenchmarkLogQuery24h compares a log query through vloki with the same
// work asked of VictoriaLogs directly.
func BenchmarkLogQuery24h(b *testing.B) {
	u, vl := benchTarget(b)
	start, end := mustTime("@0s"), mustTime("@24h")
	b.Run("vloki", func(b *testing.B) {
		target := rangeURL(u, `{namespace="shop"} |= "error"`, "", "100")
		for i := 0; i < b.N; i++ {
			httpGet(b, target)
		}
	})
	b.Run("victorialogs", func(b *testing.B) {
		q := `_time:[` + start + `, ` + end + `) {namespace="shop"} _msg:~"error" | sort by (_time desc) limit 100`
		for i := 0; i < b.N; i++ {
			vlQuery(b, vl, q)
		}
	})
}

// BenchmarkMetricQuery24h compares sum by (app) (rate(...[5m])) over 24 h
// at a 5m step through vloki with the equivalent LogsQL stats query.
func BenchmarkMetricQuery24h(b *testing.B) {
	u, vl := benchTarget(b)
	start, end := mustTime("@0s"), mustTime("@24h")
	b.Run("vloki", func(b *testing.B) {
		target := rangeURL(u, `sum by (app) (rate({namespace="shop"}[5m]))`, "300", "")
		for i := 0; i < b.N; i++ {
			httpGet(b, target)
		}
	})
	b.Run("victorialogs", func(b *testing.B) {
		q := `_time:[` + start + `, ` + end + `) {namespace="shop"} | stats by (_time:5m, app) count() as c`
		for i := 0; i < b.N; i++ {
			vlQuery(b, vl, q)
		}
	})
}

func mustTime(at string) string {
	c := Case{Params: map[string]string{"t": "@rfc:" + at[1:]}}
	q, _ := c.Query()
	v, _ := url.ParseQuery(q)
	return v.Get("t")
}

// BenchmarkMetricPushdownLogsQL runs the LogsQL vloki generates for the
// metric benchmark, to split vloki's overhead from VictoriaLogs' work.
func BenchmarkMetricPushdownLogsQL(b *testing.B) {
	_, vl := benchTarget(b)
	start, end := mustTime("@-5m"), mustTime("@24h")
	q := `({namespace="shop"} AND _time:[` + start + `, ` + end + `]) | stats by (_time:300000000000ns offset 1ns, app) count() as c`
	for i := 0; i < b.N; i++ {
		vlQuery(b, vl, q)
	}
}

// BenchmarkParsed24h: queries whose rows vloki reads and parses itself
// (json, logfmt, unwrap) over the 24 h parity dataset.
func BenchmarkParsed24h(b *testing.B) {
	base, _ := benchTarget(b)
	for _, c := range []struct{ name, query string }{
		{"json_ratio", `sum(rate({app="checkout"} | json | amount >= 100 [5m])) / sum(rate({app="checkout"} | json [5m]))`},
		{"json_avg", `avg_over_time({app="checkout"} | json | unwrap amount [5m]) by (app)`},
		{"logfmt_diff", `sum(count_over_time({app="payments"} | logfmt | level="error" [5m])) - sum(count_over_time({app="payments"} | logfmt | level="warn" [5m]))`},
		{"logs_json", `{app="checkout"} | json | amount >= 290`},
	} {
		b.Run(c.name, func(b *testing.B) {
			u := rangeURL(base, c.query, "60s", "5000")
			for b.Loop() {
				httpGet(b, u)
			}
		})
	}
}

// BenchmarkResultsCacheHit: a repeated 24 h metric query and a repeated
// label-values request, answered from the results cache, over HTTP on
// loopback.
func BenchmarkResultsCacheHit(b *testing.B) {
	base := warmTarget(b)
	for _, c := range []struct{ name, url string }{
		{"sum_rate_24h", rangeURL(base, `sum by (app) (rate({namespace="shop"}[5m]))`, "300", "")},
		{"label_values", base + "/loki/api/v1/label/app/values?start=" + strconv.FormatInt(Anchor.UnixNano(), 10) + "&end=" + strconv.FormatInt(Anchor.Add(24*time.Hour).UnixNano(), 10)},
	} {
		b.Run(c.name, func(b *testing.B) {
			httpGet(b, c.url) // cold: fills the cache
			for b.Loop() {
				httpGet(b, c.url)
			}
		})
	}
}

// BenchmarkLabelsLastHour: the label browser's requests over the last
// hour of the dataset, answered by VictoriaLogs (storage) and by the
// stream index (memory), neither cached.
func BenchmarkLabelsLastHour(b *testing.B) {
	benchTarget(b)
	q := "?start=" + strconv.FormatInt(Anchor.Add(23*time.Hour).UnixNano(), 10) + "&end=" + strconv.FormatInt(Anchor.Add(24*time.Hour).UnixNano(), 10)
	for _, path := range []string{"/loki/api/v1/labels", "/loki/api/v1/label/app/values"} {
		for _, t := range []struct{ name, base string }{{"storage", benchURL}, {"memory", indexedURL}} {
			b.Run(path[len("/loki/api/v1/"):]+"/"+t.name, func(b *testing.B) {
				for b.Loop() {
					httpGet(b, t.base+path+q)
				}
			})
		}
	}
}

// BenchmarkLineBytes24h: volumes and bytes_rate over the 24 h parity
// dataset, which sum the stored line lengths, beside VictoriaLogs summing
// the length of every _msg for the same groups.
func BenchmarkLineBytes24h(b *testing.B) {
	base, vl := benchTarget(b)
	start, end := mustTime("@0s"), mustTime("@24h")
	span := "&start=" + strconv.FormatInt(Anchor.UnixNano(), 10) + "&end=" + strconv.FormatInt(Anchor.Add(24*time.Hour).UnixNano(), 10)
	for _, c := range []struct{ name, url, twin string }{
		{"volume_range", base + "/loki/api/v1/index/volume_range?query=" + url.QueryEscape(`{namespace=~".+"}`) + "&step=3600&targetLabels=app" + span,
			`_time:[` + start + `, ` + end + `) {namespace=~".+"} | stats by (_time:1h, app) sum_len(_msg)`},
		{"bytes_rate", rangeURL(base, `sum by (app) (bytes_rate({namespace="shop"}[5m]))`, "300", ""),
			`_time:[` + start + `, ` + end + `) {namespace="shop"} | stats by (_time:5m, app) sum_len(_msg)`},
	} {
		b.Run(c.name+"/vloki", func(b *testing.B) {
			for b.Loop() {
				httpGet(b, c.url)
			}
		})
		b.Run(c.name+"/victorialogs_sum_len", func(b *testing.B) {
			for b.Loop() {
				vlQuery(b, vl, c.twin)
			}
		})
	}
}

// BenchmarkLogWalk24h: log queries that walk many rows without a line
// filter (the edge of each batch asked over _time first).
func BenchmarkLogWalk24h(b *testing.B) {
	base, _ := benchTarget(b)
	for _, c := range []struct{ name, query string }{
		{"select_5000", `{namespace="shop"}`},
		{"json_filter_5000", `{app="checkout"} | json | amount >= 290`},
	} {
		b.Run(c.name, func(b *testing.B) {
			u := rangeURL(base, c.query, "", "5000")
			for b.Loop() {
				httpGet(b, u)
			}
		})
	}
}

// BenchmarkVolumeLastHour: Drilldown's and the heavy workload's volume
// requests over the dataset's last hour, uncached, summed by VictoriaLogs
// (storage) and from the stream index's line lengths (memory).
func BenchmarkVolumeLastHour(b *testing.B) {
	benchTarget(b)
	span := "&start=" + strconv.FormatInt(Anchor.Add(23*time.Hour).UnixNano(), 10) + "&end=" + strconv.FormatInt(Anchor.Add(24*time.Hour).UnixNano(), 10)
	for _, c := range []struct{ name, path string }{
		{"volume", "/loki/api/v1/index/volume?query=" + url.QueryEscape(`{namespace="shop"}`) + "&targetLabels=app" + span},
		{"volume_range", "/loki/api/v1/index/volume_range?query=" + url.QueryEscape(`{namespace="shop"}`) + "&step=60&targetLabels=app" + span},
	} {
		for _, t := range []struct{ name, base string }{{"storage", benchURL}, {"memory", indexedURL}} {
			b.Run(c.name+"/"+t.name, func(b *testing.B) {
				for b.Loop() {
					httpGet(b, t.base+c.path)
				}
			})
		}
	}
}
