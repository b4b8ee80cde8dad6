package integration

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/parity"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestPatternsMatchLoki pushes lines of every format the pattern miner
// tells apart (plain text, logfmt, JSON with a message field; levels from
// the line) over the last hours and compares /patterns with Loki v3.7.8
// run with its pattern ingester on (make patterns-record). Loki only
// answers patterns of its last three hours, so the data is placed relative
// to now: whole hours before it, and Loki's answers are shifted by the
// hours between recording and now.
func TestPatternsMatchLoki(t *testing.T) {
	base := patternsBase(time.Now())
	recBase, loki, compare := lokiGolden(t, "patterns_loki.json", os.Getenv("PATTERNS_RECORD_LOKI_URL"),
		func(url string) int64 {
			sendPushes(t, url, "", patternPushes(base))
			time.Sleep(15 * time.Second) // Loki feeds its pattern ingester in batches
			return base.Unix()
		}, patternQueries(base))
	if !compare {
		return
	}
	queries := patternQueries(base)
	soleWriter := targetsWith(t, func(c *config.Config) { c.Backend.SoleWriter = "on" })[1]
	soleWriter.name = "embedded_mined_as_pushed"
	for _, tg := range append(targetsWith(t, func(c *config.Config) { c.Backend.SoleWriter = "off" }), soleWriter) {
		t.Run(tg.name, func(t *testing.T) {
			tenant := fmt.Sprintf("patterns%d", time.Now().UnixNano())
			sendPushes(t, tg.url, tenant, patternPushes(base))
			vltest.Flush(t, tg.vl)
			for i, a := range askAll(t, tg.url, tenant, queries) {
				want := loki[i]
				if a.Status != want.Status {
					t.Errorf("%s: status %d, Loki %d: %s", queries[i].ID, a.Status, want.Status, a.Body)
					continue
				}
				got, exp := patternSet(t, a.Body, base.Unix()), patternSet(t, want.Body, recBase)
				if !reflect.DeepEqual(got, exp) {
					t.Errorf("%s:\n vloki %v\n Loki  %v", queries[i].ID, got, exp)
				}
			}
			live := metricValue(t, tg, `vloki_pattern_answers_total{source="memory"}`)
			if want := tg == soleWriter; (live == float64(len(queries))) != want {
				t.Errorf("%v answers mined as pushes came, of %d", live, len(queries))
			}
		})
	}
}

// patternsBase is the whole hour two to three hours before now: the data
// spans 100 minutes from it, all inside Loki's three retained hours.
func patternsBase(now time.Time) time.Time {
	return now.Add(-2 * time.Hour).Truncate(time.Hour)
}

// patternSet is a patterns answer as comparable text, sample times
// relative to the data's base; Loki's order of patterns is arbitrary.
func patternSet(t *testing.T, body string, base int64) []string {
	t.Helper()
	var resp struct {
		Status string `json:"status"`
		Data   []struct {
			Pattern string     `json:"pattern"`
			Level   string     `json:"level"`
			Samples [][2]int64 `json:"samples"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	out := []string{}
	for _, d := range resp.Data {
		var b strings.Builder
		fmt.Fprintf(&b, "%q %s", d.Pattern, d.Level)
		for _, s := range d.Samples {
			fmt.Fprintf(&b, " %d:%d", s[0]-base, s[1])
		}
		out = append(out, b.String())
	}
	sort.Strings(out)
	return out
}

// patternQueries ask Drilldown's way (a selector, a step) over the whole
// data, parts of it, across an hour boundary and at several steps.
func patternQueries(base time.Time) []parity.Case {
	at := func(d time.Duration) string { return strconv.FormatInt(base.Add(d).UnixNano(), 10) }
	q := func(id, sel string, from, to time.Duration, step string) parity.Case {
		p := map[string]string{"query": sel, "start": at(from), "end": at(to)}
		if step != "" {
			p["step"] = step
		}
		return parity.Case{ID: "patterns_" + id, Endpoint: "/loki/api/v1/patterns", Params: p}
	}
	return []parity.Case{
		q("text_30s", `{service_name="checkout"}`, 0, 50*time.Minute, "30s"),
		q("logfmt_10s", `{service_name="payments"}`, 10*time.Minute, 40*time.Minute, "10s"),
		q("json_5m", `{service_name="inventory"}`, 0, 55*time.Minute, "300"),
		q("all_1m", `{service_name=~".+"}`, 5*time.Minute, 55*time.Minute, "60"),
		q("odd_bounds", `{env="prod"}`, 7*time.Minute+13*time.Second, 41*time.Minute+7*time.Second, "45s"),
		q("across_hour", `{service_name=~"checkout|payments"}`, 30*time.Minute, 90*time.Minute, "60s"),
		q("default_step", `{service_name="edge"}`, 0, 100*time.Minute, ""),
		q("nothing", `{service_name="nope"}`, 0, 50*time.Minute, "30s"),
	}
}

// patternPushes are the dataset's push bodies, one per 10 minutes, each
// stream's lines in time order.
func patternPushes(base time.Time) []string {
	r := rand.New(rand.NewSource(7))
	type stream struct {
		labels string
		every  time.Duration
		line   func(r *rand.Rand) string
	}
	streams := []stream{
		{`{service_name="checkout",env="prod"}`, 7 * time.Second, textLine},
		{`{service_name="payments",env="prod"}`, 9 * time.Second, logfmtPatternLine},
		{`{service_name="inventory",env="dev"}`, 11 * time.Second, jsonPatternLine},
		{`{service_name="edge",env="prod"}`, 13 * time.Second, edgeLine},
	}
	var bodies []string
	for w := time.Duration(0); w < 100*time.Minute; w += 10 * time.Minute {
		var parts []string
		for _, s := range streams {
			var vals []string
			for ts := w; ts < w+10*time.Minute; ts += s.every + time.Duration(r.Intn(3000))*time.Millisecond {
				line, _ := json.Marshal(s.line(r))
				vals = append(vals, fmt.Sprintf(`["%d",%s]`, base.Add(ts).UnixNano(), line))
			}
			parts = append(parts, fmt.Sprintf(`{"stream":%s,"values":[%s]}`, labelsJSON(s.labels), strings.Join(vals, ",")))
		}
		bodies = append(bodies, `{"streams":[`+strings.Join(parts, ",")+`]}`)
	}
	return bodies
}

// labelsJSON turns {a="b",c="d"} into a JSON object.
func labelsJSON(sel string) string {
	m := map[string]string{}
	for _, kv := range strings.Split(strings.Trim(sel, "{}"), ",") {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = strings.Trim(v, `"`)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func choose(r *rand.Rand, xs ...string) string { return xs[r.Intn(len(xs))] }

func textLine(r *rand.Rand) string {
	switch r.Intn(6) {
	case 0, 1:
		return fmt.Sprintf("GET /api/cart/%d 200 %dms user=%s", r.Intn(9000), r.Intn(300), choose(r, "alice", "bob", "carol"))
	case 2:
		return fmt.Sprintf("POST /api/checkout order_id=%d total=%d.%02d currency=%s", r.Intn(1e6), r.Intn(500), r.Intn(100), choose(r, "EUR", "USD"))
	case 3:
		return fmt.Sprintf("error: payment gateway timeout after %ds (attempt %d/3) [gw-%s]", r.Intn(30), r.Intn(3)+1, choose(r, "eu", "us"))
	case 4:
		return fmt.Sprintf("warn: cache miss ratio %d%% on shard %s", r.Intn(100), choose(r, "a", "b", "c"))
	}
	return fmt.Sprintf("session %x refreshed for %s in region «%s»", r.Int63(), choose(r, "web", "ios", "android"), choose(r, "eu-west", "us-east"))
}

func logfmtPatternLine(r *rand.Rand) string {
	switch r.Intn(4) {
	case 0, 1:
		return fmt.Sprintf(`ts=2024-01-01T00:00:%02dZ level=info msg="charge ok" amount=%d card=%s duration=%dms`, r.Intn(60), r.Intn(1000), choose(r, "visa", "mc", "amex"), r.Intn(900))
	case 2:
		return fmt.Sprintf(`level=error msg="card declined" code=%d reason="%s"`, 5000+r.Intn(3), choose(r, "insufficient funds", "expired card", "fraud suspected"))
	}
	return fmt.Sprintf(`level=debug msg=retry attempt=%d traceID=%x`, r.Intn(5), r.Int63())
}

func jsonPatternLine(r *rand.Rand) string {
	switch r.Intn(4) {
	case 0, 1:
		return fmt.Sprintf(`{"level":"info","msg":"stock updated for sku %d: %d left","warehouse":"%s"}`, r.Intn(5000), r.Intn(100), choose(r, "berlin", "paris"))
	case 2:
		return fmt.Sprintf(`{"level":"warn","message":"reservation %d expired after %ds","user":"u%d"}`, r.Intn(1e5), r.Intn(600), r.Intn(50))
	}
	return fmt.Sprintf(`{"severity":"ERROR","log":"db query failed: deadlock detected (tx=%d)","table":"items"}`, r.Intn(1e6))
}

func edgeLine(r *rand.Rand) string {
	switch r.Intn(5) {
	case 0:
		return fmt.Sprintf(" leading space: conn %d closed by peer", r.Intn(100))
	case 1:
		return fmt.Sprintf("%d.%d.%d.%d - - \"GET /static/%s.js HTTP/1.1\" 200 %d", r.Intn(256), r.Intn(256), r.Intn(256), r.Intn(256), choose(r, "app", "vendor", "main"), r.Intn(99999))
	case 2:
		return fmt.Sprintf("upstream=%s  latency=%dms   bytes=%d", choose(r, "a:80", "b:80"), r.Intn(100), r.Intn(5000))
	case 3:
		return "short line"
	}
	return fmt.Sprintf("INFO [worker-%d] job <%s> finished, took %d.%ds; next run in %dm", r.Intn(8), choose(r, "sync", "gc", "report"), r.Intn(10), r.Intn(10), r.Intn(60))
}

// TestPatternsReadAtMostMaxLines checks the budget: only the newest
// -patterns.max-lines lines are clustered.
func TestPatternsReadAtMostMaxLines(t *testing.T) {
	base := patternsBase(time.Now())
	const budget = 1000
	tg := targetsWith(t, func(c *config.Config) { c.Patterns.MaxLines, c.Backend.SoleWriter = budget, "off" })[1]
	sendPushes(t, tg.url, "budget", patternPushes(base))
	vltest.Flush(t, tg.vl)
	c := patternQueries(base)[3]
	c.Params["start"], c.Params["end"], c.Params["step"] = strconv.FormatInt(base.UnixNano(), 10), strconv.FormatInt(base.Add(100*time.Minute).UnixNano(), 10), "600"
	a := askAll(t, tg.url, "budget", []parity.Case{c})[0]
	var resp struct {
		Data []struct {
			Samples [][2]int64 `json:"samples"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(a.Body), &resp); err != nil || len(resp.Data) == 0 {
		t.Fatalf("%d %s", a.Status, a.Body)
	}
	total, earliest := int64(0), int64(1<<62)
	for _, d := range resp.Data {
		for _, s := range d.Samples {
			total += s[1]
			if s[1] > 0 {
				earliest = min(earliest, s[0])
			}
		}
	}
	if total > budget || earliest < base.Add(45*time.Minute).Unix() {
		t.Fatalf("%d lines counted, earliest %d (base %d): the budget was not applied to the newest lines", total, earliest, base.Unix())
	}
}

// TestPatternsKeepTheirOwnSpans: without vloki the sole writer, patterns
// read the selector's lines through the frontend, which keeps their frozen
// span for the next request. Loki's pattern ingester ignores delete
// requests, so a patterns read must never take a span of a log query that
// hid lines (same selector, same categorize-labels flag), nor leave one to
// it: after a delete request hiding every checkout line and a log query
// over the same window, patterns answer as before, from their own kept
// span, and the log query shows nothing.
func TestPatternsKeepTheirOwnSpans(t *testing.T) {
	base := patternsBase(time.Now())
	for _, tg := range targetsWith(t, func(c *config.Config) {
		c.Backend.SoleWriter = "off"
		c.Deletion.Mode, c.Deletion.CancelPeriod, c.Deletion.Dir = "filter-only", 24*time.Hour, t.TempDir()
	}) {
		t.Run(tg.name, func(t *testing.T) {
			const tenant = "patterns-spans"
			sendPushes(t, tg.url, tenant, patternPushes(base))
			vltest.Flush(t, tg.vl)
			q := patternQueries(base)[0]
			before := askAll(t, tg.url, tenant, []parity.Case{q})[0]
			if before.Status != http.StatusOK || !strings.Contains(before.Body, "pattern") {
				t.Fatalf("patterns: %d %s", before.Status, before.Body)
			}
			r := tg.deleteCall(t, http.MethodPost, tenant, url.Values{"query": {q.Params["query"] + ` |~ "."`},
				"start": {unixSeconds(base.Add(-time.Hour))}, "end": {unixSeconds(time.Now())}})
			if r.status != http.StatusNoContent {
				t.Fatalf("delete: %d %s", r.status, r.body)
			}
			now := time.Now()
			logs := tg.get(t, "/loki/api/v1/query_range", tenant, rangeParams(q.Params["query"], now.Add(-3*time.Hour), now, 5000, "backward"),
				map[string]string{"X-Loki-Response-Encoding-Flags": "categorize-labels"})
			if logs.status != http.StatusOK || strings.Contains(string(logs.body), "checkout") {
				t.Fatalf("the log query shows deleted lines: %d %.300s", logs.status, logs.body)
			}
			hits := metricValue(t, tg, "vloki_recent_logs_hits_total")
			for i := range 2 {
				after := askAll(t, tg.url, tenant, []parity.Case{q})[0]
				if after.Status != before.Status || after.Body != before.Body {
					t.Errorf("patterns asked again (%d):\n%.500s\nbefore:\n%.500s", i, after.Body, before.Body)
				}
			}
			if got := metricValue(t, tg, "vloki_recent_logs_hits_total"); got <= hits {
				t.Errorf("patterns asked again took no kept span (hits %v → %v)", hits, got)
			}
		})
	}
}

// TestConcurrentPatternsReadOnce: patterns asked by several at once of a
// cold vloki (not the sole writer) read the selector's three hours from
// VictoriaLogs about once: the later requests wait for the first read's
// span and read only what is newer. Every answer is the one asked alone.
func TestConcurrentPatternsReadOnce(t *testing.T) {
	const askers = 8
	base := patternsBase(time.Now())
	c, rec, _ := recordedVictoriaLogs(t, 50*time.Millisecond) // the askers' reads overlap
	cfg := config.Default()
	cfg.Backend.SoleWriter, cfg.Auth.Enabled = "off", true
	tg, _ := serve(t, cfg, c, "patterns-once")
	// Askers' windows end a millisecond apart: the frontend does not
	// coalesce them.
	qs := make([]parity.Case, askers)
	for i := range qs {
		qs[i] = patternQueries(base)[3] // every service
		end, _ := strconv.ParseInt(qs[i].Params["end"], 10, 64)
		qs[i].Params["end"] = strconv.FormatInt(end+int64(i)*1e6, 10)
	}
	for _, tenant := range []string{"alone", "together"} {
		sendPushes(t, tg.url, tenant, patternPushes(base))
	}
	vltest.Flush(t, c)
	before := rec.answered.Load()
	alone := askAll(t, tg.url, "alone", qs)
	one := rec.answered.Load() - before
	if alone[0].Status != http.StatusOK || !strings.Contains(alone[0].Body, "pattern") || one == 0 {
		t.Fatalf("patterns: %d %.300s (%d bytes read)", alone[0].Status, alone[0].Body, one)
	}
	before = rec.answered.Load()
	answers := make([]parity.Answer, askers)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() { answers[i] = askAll(t, tg.url, "together", qs[i:i+1])[0] })
	}
	wg.Wait()
	read := rec.answered.Load() - before
	for i, a := range answers {
		if a.Status != alone[i].Status || a.Body != alone[i].Body {
			t.Errorf("asker %d: %d %.300s\nalone: %.300s", i, a.Status, a.Body, alone[i].Body)
		}
	}
	if read > 3*one {
		t.Errorf("%d askers at once read %d bytes from VictoriaLogs; %d asking in turn read %d", askers, read, askers, one)
	}
	t.Logf("%d askers at once read %d bytes, in turn %d", askers, read, one)
}

// TestPatternsMinedOnePerCPU: patterns requests that each read and
// cluster their own lines (tenants of their own) run one per CPU at most,
// the others waiting: each holds its three hours of lines while it
// clusters them, and more at once add memory, not speed. Their answers
// are those each gets alone.
func TestPatternsMinedOnePerCPU(t *testing.T) {
	cpus := runtime.GOMAXPROCS(0)
	askers := 4 * cpus // beyond the long query slots (2 per CPU)
	base := patternsBase(time.Now())
	c, rec, _ := recordedVictoriaLogs(t, 100*time.Millisecond) // the askers' reads overlap
	cfg := config.Default()
	cfg.Backend.SoleWriter, cfg.Auth.Enabled = "off", true
	tg, _ := serve(t, cfg, c, "patterns-per-cpu")
	q := patternQueries(base)[3] // every service
	for i := range askers {
		sendPushes(t, tg.url, "miner-"+strconv.Itoa(i), patternPushes(base))
	}
	sendPushes(t, tg.url, "miner-alone", patternPushes(base))
	vltest.Flush(t, c)
	alone := askAll(t, tg.url, "miner-alone", []parity.Case{q})[0]
	if alone.Status != http.StatusOK || !strings.Contains(alone.Body, "pattern") {
		t.Fatalf("patterns: %d %.300s", alone.Status, alone.Body)
	}
	rec.mostInFlight.Store(0)
	answers := make([]parity.Answer, askers)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() { answers[i] = askAll(t, tg.url, "miner-"+strconv.Itoa(i), []parity.Case{q})[0] })
	}
	wg.Wait()
	for i, a := range answers {
		if a.Status != alone.Status || a.Body != alone.Body {
			t.Errorf("asker %d: %d %.300s\nalone: %.300s", i, a.Status, a.Body, alone.Body)
		}
	}
	if most := rec.mostInFlight.Load(); most > int64(cpus) {
		t.Errorf("%d askers read VictoriaLogs %d at once; want at most one per CPU (%d)", askers, most, cpus)
	}
}
