package canary

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// fast are settings that run the whole cycle in about two seconds.
func fast(addr string) Config {
	c := Defaults()
	c.Addr = addr
	c.Interval = 10 * time.Millisecond
	c.OutOfOrderPercentage = 20
	c.OutOfOrderMin, c.OutOfOrderMax = 100*time.Millisecond, 300*time.Millisecond
	c.Wait, c.MaxWait, c.PruneInterval = 300*time.Millisecond, 700*time.Millisecond, 100*time.Millisecond
	c.SpotCheckInterval, c.SpotCheckQueryRate, c.SpotCheckInitialWait = 100*time.Millisecond, 300*time.Millisecond, 200*time.Millisecond
	c.MetricTestInterval, c.MetricTestRange = 400*time.Millisecond, time.Second
	c.QueryTimeout, c.WriteTimeout = 2*time.Second, 2*time.Second
	c.WriteMinBackoff, c.WriteMaxBackoff, c.WriteMaxRetries = 10*time.Millisecond, 50*time.Millisecond, 2
	c.Duration, c.Drain = 1500*time.Millisecond, time.Second
	c.Seed = 7
	return c
}

func run(t *testing.T, cfg Config) Report {
	t.Helper()
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := k.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > cfg.Duration+cfg.Drain+cfg.QueryTimeout {
		t.Errorf("the run took %s", d)
	}
	t.Logf("%+v", r)
	return r
}

// want checks the failure counters: those named in bad must be above 0
// (and Beyond a clean reference must name them), the others 0.
func want(t *testing.T, r Report, bad ...string) {
	t.Helper()
	got := r.Counters()
	for _, name := range FailureCounters {
		isBad := false
		for _, b := range bad {
			isBad = isBad || b == name
		}
		if isBad != (got[name] > 0) {
			t.Errorf("%s = %v, want %s", name, got[name], map[bool]string{true: "> 0", false: "0"}[isBad])
		}
	}
	beyond := strings.Join(r.Beyond(map[string]float64{"loki_canary_entries_total": 1, "loki_canary_spot_check_entries_total": 1, "loki_canary_metric_test_request_duration_seconds_count": 1}), "\n")
	for _, b := range bad {
		if !strings.Contains(beyond, b) {
			t.Errorf("Beyond does not name %s:\n%s", b, beyond)
		}
	}
	if len(bad) == 0 && beyond != "" {
		t.Errorf("a clean run is beyond a clean reference:\n%s", beyond)
	}
	if r.Entries < 50 || r.SpotChecks == 0 || r.MetricTests < 2 {
		t.Errorf("the checks did not run: %d entries, %d spot checks, %d metric tests", r.Entries, r.SpotChecks, r.MetricTests)
	}
}

func TestCleanServer(t *testing.T) {
	_, addr := newFakeLoki(t)
	r := run(t, fast(strings.TrimPrefix(addr, "http://"))) // loki-canary's host:port form
	want(t, r)
	if r.BackStamped == 0 || r.Pings == 0 || r.ResponseLatencyCount != r.Entries || r.MetricTestActual == 0 {
		t.Errorf("back-stamped %d, pings %d, latencies %d of %d entries, last count %v",
			r.BackStamped, r.Pings, r.ResponseLatencyCount, r.Entries, r.MetricTestActual)
	}
	if r.OutOfOrder != 0 {
		t.Errorf("the fake tails in push order, yet %d entries came out of order", r.OutOfOrder)
	}
}

func TestTailMissesFoundByQuery(t *testing.T) {
	f, addr := newFakeLoki(t)
	f.hideFromTail = func(n int) bool { return n%10 == 3 }
	r := run(t, fast(addr))
	want(t, r, "loki_canary_websocket_missing_entries_total")
	if r.QueryFound != r.WebsocketMissing {
		t.Errorf("%d websocket-missing, %d found by query", r.WebsocketMissing, r.QueryFound)
	}
	if r.OutOfOrder != 0 {
		t.Errorf("entries the tail never delivered made %d out of order", r.OutOfOrder)
	}
}

func TestLostEntries(t *testing.T) {
	f, addr := newFakeLoki(t)
	f.lose = func(n int) bool { return n >= 50 && n < 62 } // longer than a spot pick's interval
	r := run(t, fast(addr))
	want(t, r, "loki_canary_websocket_missing_entries_total", "loki_canary_missing_entries_total",
		"loki_canary_spot_check_missing_entries_total", "vloki_canary_metric_test_miscounts_total")
	if r.Missing != r.WebsocketMissing {
		t.Errorf("%d websocket-missing, %d missing", r.WebsocketMissing, r.Missing)
	}
}

func TestDuplicatesAndForeignLines(t *testing.T) {
	f, addr := newFakeLoki(t)
	f.tailTwice = func(n int) bool { return n == 20 }
	f.foreignAt = 30
	r := run(t, fast(addr))
	want(t, r, "loki_canary_duplicate_entries_total", "loki_canary_unexpected_entries_total")
	if r.Duplicates != 1 || r.Unexpected != 1 {
		t.Errorf("%d duplicates, %d unexpected; want 1 and 1", r.Duplicates, r.Unexpected)
	}
}

func TestTailReorders(t *testing.T) {
	f, addr := newFakeLoki(t)
	f.tailLater = func(n int) bool { return n%25 == 5 }
	cfg := fast(addr)
	cfg.OutOfOrderPercentage = 0 // every entry in order: no reordering is explained
	r := run(t, cfg)
	held := 0 // the pushes held back and then tailed after the next one
	for n := 1; n < r.Entries; n++ {
		if f.tailLater(n) {
			held++
		}
	}
	if r.OutOfOrder != held || r.BackStamped != 0 {
		t.Errorf("%d out of order, %d back-stamped of %d entries", r.OutOfOrder, r.BackStamped, r.Entries)
	}
	if b := strings.Join(r.Beyond(nil), "\n"); !strings.Contains(b, "loki_canary_out_of_order_entries_total") {
		t.Errorf("Beyond: %s", b)
	}
}

func TestTailReconnects(t *testing.T) {
	f, addr := newFakeLoki(t)
	f.closeTailAt = 40
	r := run(t, fast(addr))
	// What was pushed while the tail was away is found by query.
	want(t, r, "loki_canary_ws_reconnects_total", "loki_canary_websocket_missing_entries_total")
	if r.Reconnects != 1 || r.Missing != 0 || r.QueryFound != r.WebsocketMissing {
		t.Errorf("%d reconnects, %d missing, %d of %d websocket-missing found", r.Reconnects, r.Missing, r.QueryFound, r.WebsocketMissing)
	}
}

func TestSlowTailIsLate(t *testing.T) {
	f, addr := newFakeLoki(t)
	f.tailHeld = 20 * time.Millisecond // slower than the interval: the tail falls behind past Wait
	r := run(t, fast(addr))
	// Entries delivered after they were given up count unexpected, as
	// loki-canary counts them; the queries found them all.
	want(t, r, "loki_canary_websocket_missing_entries_total", "loki_canary_unexpected_entries_total")
	if r.Missing != 0 {
		t.Errorf("%d missing", r.Missing)
	}
}

func TestRefusedPushes(t *testing.T) {
	f, addr := newFakeLoki(t)
	f.refuse = func(n int) bool { return n == 10 }
	r := run(t, fast(addr))
	want(t, r, "vloki_canary_push_errors_total")
	if r.PushErrors != 1 {
		t.Errorf("%d push errors, want 1", r.PushErrors)
	}
}

func TestUnreachable(t *testing.T) {
	cfg := fast("127.0.0.1:1")
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Run(context.Background()); err == nil {
		t.Fatal("no error without a server")
	}
}

// TestBindTakesLokiCanaryArgs parses the flags loki-canary was recorded
// with (internal/testing/integration/testdata/canary_loki.json).
func TestBindTakesLokiCanaryArgs(t *testing.T) {
	args := strings.Fields("-addr <server> -push -interval 100ms -out-of-order-percentage 10 -port 0 -wait 10s -max-wait 30s -pruneinterval 15s " +
		"-spot-check-interval 5s -spot-check-query-rate 10s -spot-check-initial-wait 5s -metric-test-interval 20s -metric-test-range 1m")
	cfg := Defaults()
	port := 3500
	fs := flag.NewFlagSet("canary", flag.ContinueOnError)
	cfg.Bind(fs, &port)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "<server>" || cfg.Interval != 100*time.Millisecond || cfg.OutOfOrderPercentage != 10 || port != 0 ||
		cfg.Wait != 10*time.Second || cfg.MaxWait != 30*time.Second || cfg.PruneInterval != 15*time.Second ||
		cfg.SpotCheckInterval != 5*time.Second || cfg.SpotCheckQueryRate != 10*time.Second || cfg.SpotCheckInitialWait != 5*time.Second ||
		cfg.MetricTestInterval != 20*time.Second || cfg.MetricTestRange != time.Minute || cfg.OutOfOrderMin != 30*time.Second || cfg.OutOfOrderMax != time.Minute {
		t.Errorf("%+v", cfg)
	}
	fs = flag.NewFlagSet("canary", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	cfg.Bind(fs, &port)
	if err := fs.Parse([]string{"-push=false"}); err == nil {
		t.Error("-push=false accepted")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, change := range []func(*Config){
		func(c *Config) { c.Addr = "" },
		func(c *Config) { c.Interval = 0 },
		func(c *Config) { c.OutOfOrderPercentage = 101 },
		func(c *Config) { c.OutOfOrderMin = 2 * c.OutOfOrderMax },
		func(c *Config) { c.LabelValue = "" },
	} {
		c := fast("x:1")
		change(&c)
		if _, err := New(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestCollector(t *testing.T) {
	_, addr := newFakeLoki(t)
	k, err := New(fast(addr))
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(k.Collector())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
	}
	for _, n := range []string{"loki_canary_entries_total", "loki_canary_metric_test_actual", "loki_canary_response_latency_seconds_sum"} {
		if !names[n] {
			t.Errorf("%s not gathered: %v", n, names)
		}
	}
}
