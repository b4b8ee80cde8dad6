package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/cachetest"
	"github.com/vloki/vloki/internal/tools/canary"
)

// loki-canary, Loki's own end-to-end checker, pushes an entry every 100 ms
// (10% of them stamped 30-60 s in the past), reads them back over a
// WebSocket tail, queries for the ones the tail missed, spot-checks old
// entries and runs a count_over_time metric test. Its counters are
// compared with what the same canary reported against Loki v3.7.8 under
// the same settings (testdata/canary_loki.json, written by make
// canary-record).
//
// loki-canary is built from Loki's module, which is AGPL: this test runs
// only when VLOKI_BUILD_LOKI=1 (make canary-check, make canary-record),
// never in make test; TestCanary runs vloki's own checker there.
const canaryRun = 75 * time.Second

func canaryArgs(addr string, metricsPort int) []string {
	return []string{
		"-addr", addr, "-push", "-interval", "100ms", "-out-of-order-percentage", "10",
		"-port", strconv.Itoa(metricsPort), "-wait", "10s", "-max-wait", "30s", "-pruneinterval", "15s",
		"-spot-check-interval", "5s", "-spot-check-query-rate", "10s", "-spot-check-initial-wait", "5s",
		"-metric-test-interval", "20s", "-metric-test-range", "1m",
	}
}

// canaryFailures are the counters that count a wrong answer.
var canaryFailures = canary.LokiFailureCounters

// canaryRecord is what the canary reported against one server.
type canaryRecord struct {
	Args     []string           `json:"args"`
	Seconds  float64            `json:"seconds"`
	Counters map[string]float64 `json:"counters"`
}

func TestLokiCanary(t *testing.T) {
	bin := canaryBinary(t)
	if u := os.Getenv("CANARY_RECORD_LOKI_URL"); u != "" {
		recordLokiCanary(t, bin, u)
		return
	}
	loki := readCanaryRecord(t)
	targets := targetsWith(t, func(c *config.Config) { c.Auth.Enabled = false })
	var wg sync.WaitGroup
	for _, tg := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			logPath := filepath.Join(t.TempDir(), "canary.log")
			got, err := runCanary(bin, strings.TrimPrefix(tg.url, "http://"), canaryRun, logPath)
			if err != nil {
				t.Errorf("%s: %v", tg.name, err)
				return
			}
			findings, err := readCanaryLog(logPath)
			if err != nil {
				t.Errorf("%s: %v", tg.name, err)
				return
			}
			t.Logf("%s: %v; entries that beat the canary's bookkeeping: %d", tg.name, got.Counters, len(findings.raced()))
			for _, name := range canaryFailures {
				if n := findings.failures(name, got.Counters[name]); n > loki.Counters[name] {
					t.Errorf("%s: %s = %v (%v beyond the canary's own races), Loki %v; canary's findings:\n%s",
						tg.name, name, got.Counters[name], n, loki.Counters[name], canaryFindings(logPath))
				}
			}
			// The metric test counts the last minute's entries; the 10%
			// stamped 30-60 s back leave it partly (Loki: 557 of 600).
			if a, e := got.Counters["loki_canary_metric_test_actual"], got.Counters["loki_canary_metric_test_expected"]; a < 0.85*e || a > e {
				t.Errorf("%s: metric test counted %v of %v", tg.name, a, e)
			}
			for _, name := range []string{"loki_canary_entries_total", "loki_canary_spot_check_entries_total", "loki_canary_metric_test_request_duration_seconds_count"} {
				if got.Counters[name] == 0 {
					t.Errorf("%s: %s = 0: the canary did not exercise vloki", tg.name, name)
				}
			}
		}()
	}
	wg.Wait()
}

// recordLokiCanary runs the canary against a fresh Loki and writes the
// figures the test compares with.
func recordLokiCanary(t *testing.T, bin, lokiURL string) {
	got, err := runCanary(bin, strings.TrimPrefix(lokiURL, "http://"), canaryRun, filepath.Join(t.TempDir(), "canary.log"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(got, "", "  ")
	if err := os.WriteFile(filepath.Join("testdata", "canary_loki.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %v", got.Counters)
}

// readCanaryRecord reads what loki-canary reported against Loki v3.7.8.
func readCanaryRecord(t *testing.T) canaryRecord {
	t.Helper()
	var loki canaryRecord
	b, err := os.ReadFile(filepath.Join("testdata", "canary_loki.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &loki); err != nil {
		t.Fatal(err)
	}
	return loki
}

// canaryBinary builds loki-canary from the Loki module (scripts/loki-build.sh)
// when VLOKI_BUILD_LOKI=1, and skips the test otherwise.
func canaryBinary(t *testing.T) string {
	t.Helper()
	if os.Getenv("VLOKI_BUILD_LOKI") != "1" {
		t.Skip("builds loki-canary from Loki's AGPL module: run by make canary-check and make canary-record (VLOKI_BUILD_LOKI=1), not by make test")
	}
	out, err := exec.Command(filepath.Join("..", "..", "..", "scripts", "loki-build.sh"), "loki-canary").Output()
	if err != nil {
		t.Fatalf("building loki-canary: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// runCanary runs the canary against addr for d, then reads its counters
// and stops it by its PID.
func runCanary(bin, addr string, d time.Duration, logPath string) (canaryRecord, error) {
	port, err := cachetest.FreePort()
	if err != nil {
		return canaryRecord{}, err
	}
	rec := canaryRecord{Args: canaryArgs("<server>", 0), Seconds: d.Seconds()}
	log, err := os.Create(logPath)
	if err != nil {
		return rec, err
	}
	defer log.Close()
	cmd := exec.Command(bin, canaryArgs(addr, port)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return rec, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	time.Sleep(d)
	rec.Counters, err = scrapeCanary(port)
	return rec, err
}

func scrapeCanary(port int) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", port), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || !strings.HasPrefix(name, "loki_canary_") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	return out, sc.Err()
}

// canaryLog holds the entries the canary's log names, by finding.
type canaryLog struct {
	wsMissing, unexpected, missing map[string]bool
}

// The canary's log lines (pkg/canary/comparator).
var canaryLines = []struct {
	prefix string
	set    func(*canaryLog) map[string]bool
}{
	{"websocket failed to receive entry ", func(l *canaryLog) map[string]bool { return l.wsMissing }},
	{"received an unexpected entry with ts ", func(l *canaryLog) map[string]bool { return l.unexpected }},
	{"failed to receive entry ", func(l *canaryLog) map[string]bool { return l.missing }},
}

func readCanaryLog(path string) (*canaryLog, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l := &canaryLog{wsMissing: map[string]bool{}, unexpected: map[string]bool{}, missing: map[string]bool{}}
	for _, line := range strings.Split(string(b), "\n") {
		for _, k := range canaryLines {
			if rest, ok := strings.CutPrefix(line, k.prefix); ok {
				k.set(l)[strings.Fields(rest)[0]] = true
			}
		}
	}
	return l, nil
}

// raced are entries the canary reports both as not received over the
// WebSocket and as received unexpectedly: the WebSocket delivered them
// once, outside the window the canary's bookkeeping expected. Its writer
// pushes asynchronously and its comparator takes "sent" and "received"
// in random order, so an entry that arrives within milliseconds can be
// received before it counts as sent, or be stamped old (10% are, 30-60 s
// back) and pruned as missing before its push reached the server — and
// then be asked for before it was stored.
func (l *canaryLog) raced() map[string]bool {
	out := map[string]bool{}
	for ts := range l.wsMissing {
		if l.unexpected[ts] {
			out[ts] = true
		}
	}
	return out
}

// failures is a counter less the entries that only raced the canary.
func (l *canaryLog) failures(name string, count float64) float64 {
	raced := l.raced()
	set := map[string]map[string]bool{
		"loki_canary_websocket_missing_entries_total": l.wsMissing,
		"loki_canary_unexpected_entries_total":        l.unexpected,
		"loki_canary_missing_entries_total":           l.missing,
	}[name]
	for ts := range set {
		if raced[ts] {
			count--
		}
	}
	return count
}

// canaryFindings are the lines of the canary's log that report a problem,
// and the queries it made around them.
func canaryFindings(logPath string) string {
	b, err := os.ReadFile(logPath)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		low := strings.ToLower(l)
		if !strings.Contains(low, "querying loki for logs") && (strings.Contains(low, "missing") || strings.Contains(low, "unexpected") ||
			strings.Contains(low, "duplicate") || strings.Contains(low, "error") || strings.Contains(low, "out of order")) {
			out = append(out, l)
		}
	}
	if len(out) > 40 {
		out = append(out[:40], "…")
	}
	return strings.Join(out, "\n")
}
