// Package bench is vloki-bench: Grafana's real workloads fired at vloki,
// VictoriaLogs (hand-written LogsQL twins) and Loki side by side, every
// answer verified against Loki's before timing.
package bench

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/testing/parity"
)

// DatasetConfig shapes the seeded logs.
type DatasetConfig struct {
	// Now is the end of the data; it spans Days before it.
	Now  time.Time
	Days float64
	// Lines is the total over all services.
	Lines int
	// Services is how many services log (at most len(services)).
	Services int
	// HighCardinality gives every stream a pod label of its own and
	// splits each service over 20 pods.
	HighCardinality bool
}

// DefaultDataset is ~725k lines over 24 h from 12 services.
func DefaultDataset(now time.Time) DatasetConfig {
	return DatasetConfig{Now: now, Days: 1, Lines: 725_000, Services: 12}
}

// service is one logging service: its labels and how it writes a line.
type service struct {
	app, namespace, region string
	format                 string // json, logfmt or nginx
	weight                 float64
}

var services = []service{
	{"checkout", "shop", "eu-west", "json", 1.5}, {"cart", "shop", "eu-west", "json", 1.2},
	{"payments", "shop", "us-east", "logfmt", 1}, {"frontend", "shop", "eu-west", "nginx", 2},
	{"search", "catalog", "us-east", "logfmt", 1}, {"catalog", "catalog", "eu-west", "json", 0.8},
	{"auth", "identity", "us-east", "json", 1}, {"gateway", "edge", "eu-west", "nginx", 2.5},
	{"billing", "finance", "us-east", "logfmt", 0.5}, {"scheduler", "platform", "eu-west", "logfmt", 0.4},
	{"ingest", "data", "us-east", "json", 1.3}, {"notifier", "platform", "us-east", "logfmt", 0.6},
}

// Generate builds the dataset, the same for the same configuration: per
// service one stream per level (and pod), entries spread over the span.
func Generate(cfg DatasetConfig) []parity.Stream {
	r := rand.New(rand.NewPCG(uint64(cfg.Now.Unix()), 7))
	span := time.Duration(cfg.Days * float64(24*time.Hour))
	chosen := services[:min(max(cfg.Services, 1), len(services))]
	total := 0.0
	for _, s := range chosen {
		total += s.weight
	}
	var out []parity.Stream
	for _, s := range chosen {
		n := int(float64(cfg.Lines) * s.weight / total)
		out = append(out, s.streams(r, cfg, span, n)...)
	}
	return out
}

var levels = []struct {
	name  string
	share float64
}{{"info", 0.7}, {"warn", 0.15}, {"error", 0.1}, {"debug", 0.05}}

func (s service) streams(r *rand.Rand, cfg DatasetConfig, span time.Duration, n int) []parity.Stream {
	pods := 1
	if cfg.HighCardinality {
		pods = 20
	}
	var out []parity.Stream
	for _, lv := range levels {
		for p := range pods {
			count := int(float64(n) * lv.share / float64(pods))
			if count == 0 {
				continue
			}
			labels := lokidata.Labels{{Name: "app", Value: s.app}, {Name: "namespace", Value: s.namespace},
				{Name: "env", Value: "prod"}, {Name: "region", Value: s.region}, {Name: "level", Value: lv.name}}
			if cfg.HighCardinality {
				labels = append(labels, lokidata.Label{Name: "pod", Value: fmt.Sprintf("%s-%04x", s.app, r.Uint32()&0xffff+uint32(p))})
			}
			labels.Sort()
			out = append(out, parity.Stream{Labels: labels, Entries: s.entries(r, cfg.Now, span, count, lv.name)})
		}
	}
	return out
}

// entries are count lines evenly spread over [now-span, now), jittered.
func (s service) entries(r *rand.Rand, now time.Time, span time.Duration, count int, level string) []lokidata.Entry {
	out := make([]lokidata.Entry, count)
	gap := span / time.Duration(count)
	start := now.Add(-span)
	for i := range out {
		ts := start.Add(time.Duration(i)*gap + time.Duration(r.Int64N(int64(gap))))
		out[i] = lokidata.Entry{TimestampNs: ts.UnixNano(), Line: s.line(r, level)}
	}
	return out
}

var paths = []string{"/", "/api/v1/cart", "/api/v1/checkout", "/static/app.js", "/api/v1/items?id=42", "/healthz", "/login"}

func (s service) line(r *rand.Rand, level string) string {
	status := []int{200, 200, 200, 200, 201, 204, 301, 400, 404, 500, 503}[r.IntN(11)]
	latency := 1 + r.IntN(900)
	switch s.format {
	case "json":
		return fmt.Sprintf(`{"level":%q,"msg":"request handled","service":%q,"path":%q,"status":%d,"latency_ms":%d,"user":{"id":%d,"country":%q},"bytes":%d}`,
			level, s.app, paths[r.IntN(len(paths))], status, latency, r.IntN(5000), []string{"DE", "US", "FR", "JP"}[r.IntN(4)], r.IntN(20000))
	case "logfmt":
		return fmt.Sprintf(`ts=%d level=%s msg="job step done" component=%s status=%d duration=%dms retries=%d user_id=%d`,
			r.IntN(1_000_000), level, s.app, status, latency, r.IntN(4), r.IntN(5000))
	}
	return fmt.Sprintf(`10.0.%d.%d - - [24/Nov/2026:10:00:00 +0000] "GET %s HTTP/1.1" %d %d "-" "Mozilla/5.0" %d.%03d`,
		r.IntN(256), r.IntN(256), paths[r.IntN(len(paths))], status, r.IntN(20000), latency/1000, latency%1000)
}

// Lines counts a dataset's entries.
func Lines(streams []parity.Stream) int {
	n := 0
	for _, s := range streams {
		n += len(s.Entries)
	}
	return n
}
