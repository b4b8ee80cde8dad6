package integration

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// A slow VictoriaLogs (a proxy holding its select requests) gets 504s
// with plain words, clients that give up leave nothing running behind
// them, and service comes back once VictoriaLogs is quick again.
func TestSlowBackend(t *testing.T) {
	proc, err := vltest.StartProcess(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	var delay atomic.Int64
	slow, proxyTransport := slowProxy(t, proc.URL, &delay)
	transport := backend.NewHTTPTransport()
	c, err := backend.New(slow.URL, transport, backend.Options{Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Frontend.Coalesce = false // every client's request reaches the backend
	tg, srv := serve(t, cfg, c, "external")
	tg.pushJSON(t, "", jsonPush(map[string]string{"app": "slow"}, entry{ns(time.Now()), "hello"}))
	query := url.Values{"query": {`sum(count_over_time({app="slow"}[1m]))`}, "since": {"5m"}, "step": {"60"}}
	baseline := runtime.NumGoroutine()

	delay.Store(int64(2 * time.Second))
	for path, params := range map[string]url.Values{"/loki/api/v1/query_range": query, "/loki/api/v1/labels": {"since": {"5m"}}} {
		start := time.Now()
		r := tg.get(t, path, "", params, nil)
		if r.status != http.StatusGatewayTimeout || !strings.Contains(string(r.body), "did not answer within 500ms") || strings.Contains(string(r.body), "127.0.0.1") {
			t.Errorf("%s on a slow VictoriaLogs: %d %q", path, r.status, r.body)
		}
		if d := time.Since(start); d > 1500*time.Millisecond {
			t.Errorf("%s took %s to time out", path, d)
		}
	}

	// Clients giving up after 100 ms: nothing of theirs stays behind.
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/loki/api/v1/query_range?"+query.Encode(), nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	delay.Store(0)
	srv.CloseClientConnections()
	noneLeftBehind(t, baseline, transport, proxyTransport)

	deadline := time.Now().Add(5 * time.Second)
	for {
		r := tg.get(t, "/loki/api/v1/query_range", "", query, nil)
		if r.status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %d %s 5 s after VictoriaLogs is quick again", r.status, r.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// slowProxy forwards to target, holding each select request for delay
// (or until the caller gives up). It returns its transport to target too.
func slowProxy(t *testing.T, target string, delay *atomic.Int64) (*httptest.Server, *http.Transport) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0)
	transport := backend.NewHTTPTransport()
	rp.Transport = transport
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/select/") {
			select {
			case <-time.After(time.Duration(delay.Load())):
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, transport
}
