package integration

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestInsertAndSelectURLs: with -backend.insert-url, pushes go there (a
// cluster's vlinsert) and everything else to -backend.url (its vlselect).
func TestInsertAndSelectURLs(t *testing.T) {
	proc, err := vltest.StartProcess(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	vlURL, _ := url.Parse(proc.URL)
	var inserts, others atomic.Int64
	insertProxy := httptest.NewServer(countingProxy(vlURL, func(path string) {
		if strings.HasPrefix(path, "/insert/") {
			inserts.Add(1)
		} else {
			others.Add(1)
		}
	}))
	t.Cleanup(insertProxy.Close)
	c, err := backend.New(proc.URL, backend.NewHTTPTransport(), backend.Options{InsertURL: insertProxy.URL})
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := serve(t, config.Default(), c, "split")
	tg.pushNoFlush(t, "", map[string]string{"app": "split"}, entry{ns(time.Now()), "through the insert URL"})
	r := tg.get(t, "/loki/api/v1/query_range", "", url.Values{"query": {`{app="split"}`}, "since": {"5m"}}, nil)
	if !strings.Contains(string(r.body), "through the insert URL") {
		t.Fatalf("query: %d %s", r.status, r.body)
	}
	if inserts.Load() != 1 || others.Load() != 0 {
		t.Fatalf("the insert URL saw %d pushes and %d other requests", inserts.Load(), others.Load())
	}
}

func countingProxy(to *url.URL, seen func(path string)) http.Handler {
	p := httputil.NewSingleHostReverseProxy(to)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen(r.URL.Path)
		p.ServeHTTP(w, r)
	})
}
