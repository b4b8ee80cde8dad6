package parity

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
)

func generators() []generator {
	return []generator{
		{labels: []string{"app", "checkout", "namespace", "shop", "env", "prod", "cluster", "eu-1", "pod", "checkout-7d9f-x1", "container", "checkout"}, every: 2 * time.Second, line: jsonOrder},
		{labels: []string{"app", "checkout", "namespace", "shop", "env", "prod", "cluster", "eu-1", "pod", "checkout-7d9f-x2", "container", "checkout"}, every: 2 * time.Second, line: jsonOrder},
		{labels: []string{"app", "cart", "namespace", "shop", "env", "prod", "cluster", "eu-1", "pod", "cart-55c-a"}, every: 3 * time.Second, line: jsonNested},
		{labels: []string{"app", "payments", "namespace", "shop", "env", "prod", "cluster", "us-2", "level", "info"}, every: 4 * time.Second, line: logfmtPayment},
		{labels: []string{"app", "payments", "namespace", "shop", "env", "staging", "cluster", "us-2", "level", "error"}, every: 20 * time.Second, line: logfmtPayment},
		{labels: []string{"job", "nginx", "namespace", "edge", "env", "prod", "cluster", "eu-1", "instance", "10.0.0.5:80"}, every: time.Second, line: nginxCombined},
		{labels: []string{"job", "apache", "namespace", "edge", "env", "prod", "cluster", "us-2"}, every: 5 * time.Second, line: apacheCommon},
		{labels: []string{"app", "search", "namespace", "catalog", "env", "prod", "component", "indexer"}, every: 6 * time.Second, line: plainText},
		{labels: []string{"app", "search", "namespace", "catalog", "env", "prod", "component", "query"}, every: 4 * time.Second, line: durationsAndSizes},
		{labels: []string{"service", "auth", "namespace", "identity", "env", "prod"}, every: 3 * time.Second, line: jsonAuth},
		{labels: []string{"application", "billing", "namespace", "finance", "env", "prod"}, every: 10 * time.Second, line: stackTraces},
		{labels: []string{"app_kubernetes_io_name", "scheduler", "namespace", "platform", "env", "prod"}, every: 15 * time.Second, line: ansiColored},
		{labels: []string{"container_name", "sidecar", "namespace", "platform", "env", "prod"}, every: 30 * time.Second, line: counterLine},
		{labels: []string{"k8s_job_name", "backup", "namespace", "platform", "env", "prod"}, every: 20 * time.Minute, line: sparseLine},
		{labels: []string{"workload", "ingest", "namespace", "data", "env", "prod"}, every: time.Minute, burst: 25, line: burstyLine},
		{labels: []string{"name", "gateway", "namespace", "edge", "env", "prod"}, every: 2 * time.Second, line: ipLine},
		{labels: []string{"host", "db-1", "env", "prod", "region", "eu"}, every: 8 * time.Second, line: mixedLevels},
		{labels: []string{"host", "db-2", "env", "prod", "region", "us"}, every: 8 * time.Second, line: mixedLevels},
		{labels: []string{"team", "ml", "env", "dev"}, every: 12 * time.Second, line: unicodeLine},
		{labels: []string{"app", "exporter", "namespace", "monitoring", "env", "prod", "level", "warn"}, every: 45 * time.Second, line: longAndEmpty},
		{labels: []string{"app", "frontend", "namespace", "shop", "env", "prod", "cluster", "eu-1"}, every: 2 * time.Second, line: logfmtFrontend},
		{labels: []string{"component", "cron", "namespace", "platform", "env", "prod"}, every: 5 * time.Minute, line: plainText},
	}
}

var paths = []string{"/", "/api/v1/cart", "/api/v1/checkout", "/static/app.js", "/api/v1/items?id=42&sort=desc", "/healthz"}

func jsonOrder(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	lvl := levelWord(r)
	return fmt.Sprintf(`{"level":%q,"msg":"order processed","order_id":%d,"amount":%.2f,"currency":"EUR","items":[%d,%d],"paid":%t,"coupon":null,"duration":"%dms","user":{"id":%d,"country":%q}}`,
		lvl, 100000+i, r.Float64()*300, r.IntN(50), r.IntN(50), r.IntN(2) == 0, 5+r.IntN(900), r.IntN(5000), pick(r, "DE", "US", "FR", "JP")), trace(r)
}

func jsonNested(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	return fmt.Sprintf(`{"lvl":%q,"event":"cart \"updated\"","cart":{"id":"c-%d","size":%d,"meta":{"source":%q,"promo":%t}},"latency_ms":%d,"tags":["a","b"]}`,
		pick(r, "INFO", "DEBUG", "WARN"), i, r.IntN(20), pick(r, "web", "ios", "android"), r.IntN(3) == 0, r.IntN(400)), md("user", fmt.Sprintf("u%d", r.IntN(40)))
}

func logfmtPayment(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	status := pick(r, "ok", "ok", "ok", "declined", "timeout")
	lvl := "info"
	if status != "ok" {
		lvl = pick(r, "warn", "error")
	}
	return fmt.Sprintf(`ts=%d level=%s msg="payment %s" amount=%d.%02d method=%s retry= latency=%dms card="**** %04d" status=%s status=%s`,
		i, lvl, status, r.IntN(500), r.IntN(100), pick(r, "card", "sepa", "paypal"), r.IntN(2000), r.IntN(10000), status, pick(r, "a", "b")), trace(r)
}

func nginxCombined(r *rand.Rand, _ int, ts time.Time) (string, lokidata.Labels) {
	return fmt.Sprintf(`%d.%d.%d.%d - - [%s] "%s %s HTTP/1.1" %d %d "-" "Mozilla/5.0 (X11; Linux x86_64)"`,
		10+r.IntN(3), r.IntN(256), r.IntN(256), r.IntN(256), ts.Format("02/Jan/2006:15:04:05 -0700"),
		pick(r, "GET", "GET", "POST", "PUT", "DELETE"), pick(r, paths...), pick(r, 200, 200, 200, 201, 301, 404, 500, 503), r.IntN(50000)), nil
}

func apacheCommon(r *rand.Rand, _ int, ts time.Time) (string, lokidata.Labels) {
	return fmt.Sprintf(`192.168.%d.%d - frank [%s] "GET %s HTTP/1.0" %d %d`,
		r.IntN(4), r.IntN(256), ts.Format("02/Jan/2006:15:04:05 -0700"), pick(r, paths...), pick(r, 200, 304, 404), r.IntN(9000)), nil
}

func plainText(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	return pick(r,
		fmt.Sprintf("indexed %d documents in shard %d", r.IntN(10000), r.IntN(8)),
		"starting compaction run",
		fmt.Sprintf("WARNING: shard %d is lagging behind by %d ops", r.IntN(8), r.IntN(500)),
		fmt.Sprintf("Error: connection reset by peer (attempt %d)", 1+r.IntN(3)),
		"compaction finished",
	), nil
}

func durationsAndSizes(r *rand.Rand, _ int, _ time.Time) (string, lokidata.Labels) {
	return fmt.Sprintf(`query="%s" took=%s size=%s rows=%d cache=%s`,
		pick(r, "shoes", "red shirt", "über jacke"), pick(r, "15ms", "1.5s", "250us", "2m3s", "750ms", "42s"),
		pick(r, "1024B", "3KiB", "1.5MB", "2GiB", "512kB", "12MiB"), r.IntN(1000), pick(r, "hit", "miss")), nil
}

func jsonAuth(r *rand.Rand, _ int, _ time.Time) (string, lokidata.Labels) {
	ok := r.IntN(5) != 0
	return fmt.Sprintf(`{"severity":%q,"message":"login %s","user":"user%d@example.com","mfa":%t,"attempts":%d,"ip":"203.0.113.%d"}`,
			map[bool]string{true: "info", false: "warning"}[ok], map[bool]string{true: "succeeded", false: "failed"}[ok], r.IntN(60), r.IntN(2) == 0, 1+r.IntN(3), r.IntN(255)),
		md("user", fmt.Sprintf("user%d", r.IntN(60)))
}

func stackTraces(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	if r.IntN(3) != 0 {
		return fmt.Sprintf("INFO invoice %d generated", i), nil
	}
	return fmt.Sprintf("ERROR failed to charge invoice %d\njava.lang.IllegalStateException: card expired\n\tat com.shop.billing.Charge.run(Charge.java:%d)\n\tat com.shop.billing.Worker.loop(Worker.java:88)\n\tat java.base/java.lang.Thread.run(Thread.java:833)", i, 10+r.IntN(200)), trace(r)
}

func ansiColored(r *rand.Rand, _ int, _ time.Time) (string, lokidata.Labels) {
	color := pick(r, "\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[31mERROR\x1b[0m")
	return fmt.Sprintf("%s scheduled %d pods on node-%d", color, r.IntN(30), r.IntN(9)), nil
}

// counterLine emits a monotonic counter that resets now and then.
func counterLine(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	return fmt.Sprintf("requests_total=%d bytes_total=%d", (i%37)*10+r.IntN(10), (i%53)*1024), nil
}

func sparseLine(_ *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	return fmt.Sprintf("backup %d completed", i), nil
}

func burstyLine(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	return fmt.Sprintf(`{"level":"info","batch":%d,"record":%d}`, i/25, i%25), md("user", pick(r, "etl", "loader"))
}

func ipLine(r *rand.Rand, _ int, _ time.Time) (string, lokidata.Labels) {
	return pick(r,
		fmt.Sprintf("proxy client=10.%d.%d.%d upstream=192.168.1.%d status=%d", r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256), pick(r, 200, 502)),
		fmt.Sprintf("proxy client=2001:db8::%x upstream=fd00::%x status=%d", r.IntN(65536), r.IntN(65536), pick(r, 200, 504)),
	), nil
}

// mixedLevels writes level fields that agree and disagree with the text.
func mixedLevels(r *rand.Rand, _ int, _ time.Time) (string, lokidata.Labels) {
	return pick(r,
		`level=info msg="checkpoint complete"`,
		`level=error msg="slow query" duration=1.2s`,
		`level=info msg="error count reset"`,
		`{"level":"debug","msg":"vacuum"}`,
		`msg="no level here" rows=12`,
	), nil
}

func unicodeLine(r *rand.Rand, _ int, _ time.Time) (string, lokidata.Labels) {
	return pick(r, "訓練完了 epoch=3 loss=0.12", "modèle chargé ✓", "Überprüfung läuft…", "emoji 🚀 launch", `quote "inside" and \backslash`, "tab\tseparated\tvalues"), nil
}

func longAndEmpty(r *rand.Rand, i int, _ time.Time) (string, lokidata.Labels) {
	switch i % 4 {
	case 0:
		return "", nil
	case 1:
		return "metrics dump " + strings.Repeat(fmt.Sprintf("k%d=v%d ", r.IntN(100), r.IntN(100)), 900), nil
	}
	return fmt.Sprintf("scrape ok targets=%d", r.IntN(100)), nil
}

func logfmtFrontend(r *rand.Rand, _ int, _ time.Time) (string, lokidata.Labels) {
	return fmt.Sprintf(`level=%s caller=render.go:%d msg="page rendered" path=%s status=%d duration=%dms bytes=%d`,
		levelWord(r), 10+r.IntN(90), pick(r, paths...), pick(r, 200, 200, 404, 500), r.IntN(3000), r.IntN(200000)), md("user", fmt.Sprintf("u%d", r.IntN(40)))
}
