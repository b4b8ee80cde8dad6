package integration

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/metrics"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/vltest"
)

// TestBackendOutage stops the VictoriaLogs under vloki: queries, metadata
// and pushes answer 503 with words a person can act on and nothing of
// VictoriaLogs' address or Go's error chain; /ready says not ready; once
// VictoriaLogs is back, service resumes within 5 s.
func TestBackendOutage(t *testing.T) {
	proc, err := vltest.StartProcess(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	c, err := backend.New(proc.URL, backend.NewHTTPTransport(), backend.Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	app, err := server.Assemble(config.Default(), slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), c, "external", func() {})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	tg := target{name: "external", url: srv.URL, vl: c}
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
