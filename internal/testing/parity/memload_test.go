package parity

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/backend/embedded"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestMemLoad is a throwaway-grade memory driver for issue 12's long_range
// workload: VLOKI_MEM_LOAD=embedded|external starts vloki on that backend
// with VLOKI_MEM_LINES lines over 24 h (default 725,000; the data directory
// VLOKI_MEM_DATA is reused between runs), fires the queries from
// VLOKI_MEM_CLIENTS goroutines (default 50) for VLOKI_MEM_DURATION
// (default 15s; VLOKI_MEM_QUERIES=0,3 picks queries by index;
// VLOKI_MEM_ALLOWED sets memory.allowed_bytes) and reports peak heap and RSS. With VLOKI_MEM_PROFILE set
// to a directory, it writes a heap profile at mid-run there.
func TestMemLoad(t *testing.T) {
	mode := os.Getenv("VLOKI_MEM_LOAD")
	if mode == "" {
		t.Skip("set VLOKI_MEM_LOAD=embedded or external")
	}
	base, vlPid := memTarget(t, mode)
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS(os.Getpid())
	if vlPid != 0 {
		resetPeakRSS(vlPid)
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	s := &memSampler{}
	stop := s.start(50 * time.Millisecond)
	res := fireLoad(t, base, envInt("VLOKI_MEM_CLIENTS", 50), envDuration("VLOKI_MEM_DURATION", 15*time.Second))
	stop()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	t.Logf("mode=%s requests=%d errors=%d p50=%s p99=%s", mode, res.n, res.errors, res.pct(0.5), res.pct(0.99))
	t.Logf("heap in use: peak %d MB; heap sys peak %d MB; alloc per request %d KB; GCs %d",
		s.heapInuse.Load()>>20, s.heapSys.Load()>>20, (after.TotalAlloc-before.TotalAlloc)/uint64(max(res.n, 1))>>10, after.NumGC-before.NumGC)
	t.Logf("vloki process peak RSS %d MB", peakRSS(os.Getpid())>>20)
	if vlPid != 0 {
		t.Logf("victoria-logs process peak RSS %d MB", peakRSS(vlPid)>>20)
	}
	for q, e := range res.firstErr {
		t.Logf("error sample: %s: %s", q, e)
	}
}

// memQueries is the long_range workload over the dataset's day (@0s..@24h).
func memQueries() []Case {
	p := func(kv ...string) Case {
		c := Case{Endpoint: "/loki/api/v1/query_range", Params: map[string]string{}}
		if strings.Contains(kv[0], "/") {
			c.Endpoint, kv = kv[0], kv[1:]
		}
		for i := 0; i < len(kv); i += 2 {
			c.Params[kv[i]] = kv[i+1]
		}
		return c
	}
	return []Case{
		p("query", `{env="prod"}`, "start", "@18h", "end", "@24h", "limit", "1000"),
		p("query", `{namespace="shop"}`, "start", "@0s", "end", "@24h", "limit", "5000"),
		p("query", `{env=~".+"}`, "start", "@-24h", "end", "@24h", "limit", "5000"),
		p("query", `sum by (app) (rate({namespace="shop"}[5m]))`, "start", "@18h", "end", "@24h"),
		p("query", `sum by (app) (rate({namespace="shop"}[5m]))`, "start", "@0s", "end", "@24h"),
		p("query", `sum by (detected_level) (count_over_time({env="prod"}[1h]))`, "start", "@-24h", "end", "@24h", "step", "3600"),
		p("query", `bytes_rate({namespace="edge"}[5m])`, "start", "@-48h", "end", "@24h"),
		p("/loki/api/v1/labels", "start", "@0s", "end", "@24h"),
		p("/loki/api/v1/series", "match[]", `{namespace="shop"}`, "start", "@0s", "end", "@24h"),
		p("query", `{namespace="shop"} | json | status >= 400`, "start", "@0s", "end", "@24h", "limit", "5000"),
		// 10 is not in the default mix: a series per entry (trace ids in
		// structured metadata), which Loki refuses after max_query_series.
		p("query", `bytes_rate({env="prod"}[5m])`, "start", "@-48h", "end", "@24h"),
	}
}

// memTarget starts vloki on the chosen backend over a reused data
// directory, pushing the dataset when the directory is new.
func memTarget(t *testing.T, mode string) (string, int) {
	dir := os.Getenv("VLOKI_MEM_DATA")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "vloki-mem-data-"+strconv.Itoa(envInt("VLOKI_MEM_LINES", 725_000)))
	}
	_, statErr := os.Stat(filepath.Join(dir, "flock.lock"))
	fresh := os.IsNotExist(statErr)
	var c *backend.Client
	var pid int
	var err error
	cfg := config.Default()
	// Cold: every request is worked out, none answered from the frontend.
	cfg.Frontend.CacheResults, cfg.Frontend.Coalesce = false, false
	if n := envInt("VLOKI_MEM_ALLOWED", 0); n > 0 {
		cfg.Memory.AllowedBytes = int64(n)
	}
	if err := server.LimitMemory(cfg.Memory, mode == "embedded", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	switch mode {
	case "embedded":
		var eng *embedded.Engine
		if eng, err = embedded.Start(embedded.Config{DataPath: dir, Retention: "100y", LogLevel: "ERROR"}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(eng.Stop)
		c, err = backend.New("http://embedded", eng.RoundTripper(), backend.Options{Direct: eng})
	case "external":
		proc, perr := vltest.StartProcess(dir)
		if perr != nil {
			t.Fatal(perr)
		}
		t.Cleanup(proc.Stop)
		pid = proc.PID()
		c, err = backend.New(proc.URL, backend.NewHTTPTransport(), backend.Options{})
	default:
		t.Fatalf("VLOKI_MEM_LOAD=%q: want embedded or external", mode)
	}
	if err != nil {
		t.Fatal(err)
	}
	app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), c, mode, func() {})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(app.Handler())
	t.Cleanup(srv.Close)
	if fresh {
		if err := Push(context.Background(), srv.URL, "", Generate(envInt("VLOKI_MEM_LINES", 725_000), 24*time.Hour), 1<<20); err != nil {
			t.Fatal(err)
		}
		if err := c.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return srv.URL, pid
}

type loadResult struct {
	n, errors int
	latencies []time.Duration
	firstErr  map[string]string
}

func (r *loadResult) pct(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	sort.Slice(r.latencies, func(i, j int) bool { return r.latencies[i] < r.latencies[j] })
	return r.latencies[int(p*float64(len(r.latencies)-1))]
}

// fireLoad runs a closed loop: each client asks the next query as soon as
// the previous answer is read.
func fireLoad(t *testing.T, base string, clients int, d time.Duration) *loadResult {
	var urls []string
	for i, c := range memQueries() {
		only := os.Getenv("VLOKI_MEM_QUERIES")
		if only == "" && i == 10 || only != "" && !slices.Contains(strings.Split(only, ","), strconv.Itoa(i)) {
			continue
		}
		q, err := c.Query()
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, base+c.Endpoint+"?"+q)
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	res := &loadResult{firstErr: map[string]string{}}
	var mu sync.Mutex
	deadline := time.Now().Add(d)
	profiled := atomic.Bool{}
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			for j := i; time.Now().Before(deadline); j++ {
				u := urls[j%len(urls)]
				t0 := time.Now()
				status, msg := getDiscard(hc, u)
				mu.Lock()
				res.n++
				res.latencies = append(res.latencies, time.Since(t0))
				if status != 200 {
					res.errors++
					res.firstErr[u[len(base):]] = msg
				}
				mu.Unlock()
				if time.Until(deadline) < d/2 && profiled.CompareAndSwap(false, true) {
					writeHeapProfile(t)
				}
			}
		})
	}
	wg.Wait()
	return res
}

func getDiscard(hc *http.Client, u string) (int, string) {
	resp, err := hc.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return resp.StatusCode, string(b)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return 200, ""
}

func writeHeapProfile(t *testing.T) {
	dir := os.Getenv("VLOKI_MEM_PROFILE")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, "heap-midrun.pprof"))
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	_ = pprof.Lookup("heap").WriteTo(f, 0)
}

// memSampler records the peaks of the Go heap.
type memSampler struct {
	heapInuse, heapSys atomic.Uint64
}

func (s *memSampler) start(every time.Duration) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			s.heapInuse.Store(max(s.heapInuse.Load(), m.HeapInuse))
			s.heapSys.Store(max(s.heapSys.Load(), m.HeapSys-m.HeapReleased))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// resetPeakRSS clears the kernel's VmHWM of a process (Linux).
func resetPeakRSS(pid int) {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// peakRSS reads VmHWM, in bytes.
func peakRSS(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}
