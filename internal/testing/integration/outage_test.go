package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestBackendOutage stops the VictoriaLogs under vloki: queries, metadata
// and pushes answer 503 with words a person can act on and nothing of
// VictoriaLogs' address or Go's error chain; /ready says not ready; once
// VictoriaLogs is back, service resumes within 5 s.
func TestBackendOutage(t *testing.T) {
	tg, proc, _, _ := vlokiOverProcess(t)
	tg.pushJSON(t, "", jsonPush(map[string]string{"app": "outage"}, entry{ns(time.Now()), "before"}))

	proc.Stop()
	host := strings.TrimPrefix(proc.URL, "http://")
	q := url.Values{"query": {`{app="outage"}`}}
	for range 8 { // past the circuit breaker's threshold too
		for _, r := range []response{
			tg.get(t, "/loki/api/v1/query_range", "", q, nil),
			tg.get(t, "/loki/api/v1/labels", "", nil, nil),
			tg.do(t, http.MethodPost, "/loki/api/v1/push", "", []byte(`{"streams":[{"stream":{"app":"outage"},"values":[["1","x"]]}]}`), map[string]string{"Content-Type": "application/json"}),
		} {
			body := string(r.body)
			if r.status != http.StatusServiceUnavailable || !strings.Contains(body, "VictoriaLogs") ||
				strings.Contains(body, host) || strings.Contains(body, "dial tcp") || strings.Contains(body, "/select/") {
				t.Fatalf("during the outage: %d %q", r.status, body)
			}
		}
	}
	if r := tg.get(t, "/ready", "", nil, nil); r.status != http.StatusServiceUnavailable || strings.Contains(string(r.body), host) {
		t.Fatalf("ready during the outage: %d %q", r.status, r.body)
	}

	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	for {
		r := tg.get(t, "/loki/api/v1/query_range", "", q, nil)
		if r.status == http.StatusOK && strings.Contains(string(r.body), "before") {
			break
		}
		if time.Since(back) > 5*time.Second {
			t.Fatalf("not recovered 5 s after VictoriaLogs came back: %d %s", r.status, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("recovered %s after VictoriaLogs was healthy again", time.Since(back).Round(time.Millisecond))
}

// TestOutageUnderLoad restarts VictoriaLogs while pushes and queries keep
// coming: every answer is a success or the documented 503, every
// acknowledged push is found afterwards, and no goroutine is left behind.
// (VictoriaLogs is stopped with SIGTERM, which flushes it; a kill -9 of
// VictoriaLogs itself loses what it had not yet written, as README says.)
func TestOutageUnderLoad(t *testing.T) {
	tg, proc, srv, transport := vlokiOverProcess(t)
	baseline := runtime.NumGoroutine()

	var (
		mu     sync.Mutex
		acked  []string
		codes  = map[int]int{}
		stop   = make(chan struct{})
		wg     sync.WaitGroup
		odd    []string
		record = func(r response) {
			mu.Lock()
			defer mu.Unlock()
			codes[r.status]++
			if r.status != http.StatusOK && r.status != http.StatusNoContent && r.status != http.StatusServiceUnavailable {
				odd = append(odd, fmt.Sprintf("%d %s", r.status, r.body))
			}
		}
	)
	wg.Add(2)
	go func() { // pushes, one line every 10 ms
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			line := fmt.Sprintf("load %04d", i)
			b, _ := json.Marshal(jsonPush(map[string]string{"app": "chaos"}, entry{ns(time.Now()), line}))
			r := tg.do(t, http.MethodPost, "/loki/api/v1/push", "", b, map[string]string{"Content-Type": "application/json"})
			record(r)
			if r.status == http.StatusNoContent {
				mu.Lock()
				acked = append(acked, line)
				mu.Unlock()
			}
		}
	}()
	go func() { // queries, one every 20 ms
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			record(tg.get(t, "/loki/api/v1/query_range", "", url.Values{"query": {`{app="chaos"}`}, "since": {"5m"}, "limit": {"5"}}, nil))
		}
	}()
	time.Sleep(time.Second)
	proc.Stop()
	time.Sleep(time.Second)
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	close(stop)
	wg.Wait()

	for _, o := range odd {
		t.Errorf("answer outside 200/204/503: %s", o)
	}
	if codes[http.StatusServiceUnavailable] == 0 || codes[http.StatusNoContent] == 0 {
		t.Fatalf("the outage was not exercised: %v", codes)
	}
	q := url.Values{"query": {`{app="chaos"}`}, "since": {"10m"}, "limit": {"5000"}}
	body := string(tg.get(t, "/loki/api/v1/query_range", "", q, nil).body)
	for _, l := range acked {
		if !strings.Contains(body, `"`+l+`"`) {
			t.Errorf("acknowledged %q is missing", l)
		}
	}
	srv.CloseClientConnections()
	noneLeftBehind(t, baseline, transport)
	t.Logf("answers by status %v; %d pushes acknowledged, all found", codes, len(acked))
}

// vlokiOverProcess is vloki (auth off) over a victoria-logs process of its
// own, which the test may stop and start.
func vlokiOverProcess(t *testing.T) (target, *vltest.Process, *httptest.Server, *http.Transport) {
	t.Helper()
	proc, err := vltest.StartProcess(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	transport := backend.NewHTTPTransport()
	c, err := backend.New(proc.URL, transport, backend.Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	tg, srv := serve(t, config.Default(), c, "external")
	return tg, proc, srv, transport
}
