package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/onewrite"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// target is vloki on one backend, reached over HTTP.
type target struct {
	name string
	url  string
	vl   *backend.Client
}

// targets starts vloki with auth on, over an external victoria-logs process
// and over the embedded engine.
func targets(t *testing.T) []target {
	t.Helper()
	return targetsWithTimeout(t, time.Duration(config.Default().Limits.QueryTimeout))
}

// targetsWithTimeout is targets with a custom query timeout.
func targetsWithTimeout(t *testing.T, timeout time.Duration) []target {
	t.Helper()
	return targetsWith(t, func(cfg *config.Config) { cfg.Limits.QueryTimeout = model.Duration(timeout) })
}

// targetsWith is targets with a configuration change.
func targetsWith(t *testing.T, change func(*config.Config)) []target {
	t.Helper()
	var out []target
	for _, b := range vltest.Both(t) {
		cfg := config.Default()
		cfg.Auth.Enabled = true
		change(&cfg)
		tg, _ := serve(t, cfg, b.Client, b.Name)
		out = append(out, tg)
	}
	return out
}

// serve starts vloki with cfg over c, stopped with the test.
func serve(t *testing.T, cfg config.Config, c *backend.Client, name string) (target, *httptest.Server) {
	t.Helper()
	if cfg.Storage.Path == config.Default().Storage.Path {
		cfg.Storage.Path = t.TempDir() // vloki's own files (rule state, WAL, stream index, …)
	}
	if cfg.Ingester.QueryStoreMaxLookBackPeriod == 0 {
		cfg.Ingester.QueryStoreMaxLookBackPeriod = -1 // as parity/loki-config.yaml, the recordings' Loki
	}
	app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), c, name, func() {})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(app.Handler())
	// The app's background work (rule evaluation, …) stops with the test,
	// before its directories are removed.
	t.Cleanup(func() { srv.Close(); app.Close() })
	return target{name: name, url: srv.URL, vl: c}, srv
}

// response is a captured HTTP answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// noRedirects answers a redirect as it came (Loki's 301 for unclean
// paths is an answer the tests check).
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// do sends a request and returns the answer as it came.
func (tg target) do(t *testing.T, method, path, tenantID string, body []byte, hdr map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(method, tg.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if tenantID != "" {
		req.Header.Set("X-Scope-OrgID", tenantID)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func (tg target) get(t *testing.T, path, tenantID string, params url.Values, hdr map[string]string) response {
	t.Helper()
	return tg.do(t, http.MethodGet, path+"?"+params.Encode(), tenantID, nil, hdr)
}

// pushJSON pushes a Loki JSON body and requires 204, then flushes.
func (tg target) pushJSON(t *testing.T, tenantID string, body any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	r := tg.do(t, http.MethodPost, "/loki/api/v1/push", tenantID, b, map[string]string{"Content-Type": "application/json"})
	if r.status != http.StatusNoContent {
		t.Fatalf("push: %d %s", r.status, r.body)
	}
	vltest.Flush(t, tg.vl)
}

// streamsResult is the decoded data of a streams answer.
type streamsResult struct {
	Status string `json:"status"`
	Data   struct {
		ResultType    string   `json:"resultType"`
		EncodingFlags []string `json:"encodingFlags"`
		Result        []struct {
			Stream map[string]string `json:"stream"`
			Values [][]any           `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

func decodeStreams(t *testing.T, r response) streamsResult {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var out streamsResult
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
	return out
}

func TestMain(m *testing.M) {
	os.Exit(vltest.Main(m))
}

// newServer serves h as the vloki binary does: answers leave in one
// write (onewrite).
func newServer(h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = onewrite.Install(srv.Config, srv.Listener)
	srv.Start()
	return srv
}
