package integration

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestReplicaURLs runs vloki on a VictoriaLogs cluster (two storage nodes)
// through two fronts listed in one URL: requests take the fronts in turn,
// and with one front stopped pushes and queries go to the other without a
// failed request.
func TestReplicaURLs(t *testing.T) {
	cluster, err := vltest.StartCluster(t.TempDir(), 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	var seen [2]atomic.Int64
	var urls []string
	var proxies []*httptest.Server
	for i, f := range cluster.Fronts {
		u, _ := url.Parse(f.URL)
		proxy := httptest.NewServer(countingProxy(u, func(string) { seen[i].Add(1) }))
		t.Cleanup(proxy.Close)
		urls, proxies = append(urls, proxy.URL), append(proxies, proxy)
	}
	c, err := backend.New(strings.Join(urls, ","), backend.NewHTTPTransport(), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := serve(t, config.Default(), c, "replicas")
	ask := func(app string, want int) {
		t.Helper()
		if err := cluster.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		r := tg.get(t, "/loki/api/v1/query_range", "", rangeParams(`{app="`+app+`"}`, base, base.Add(time.Hour), 100, "forward"), nil)
		if got := strings.Count(string(r.body), `"line `); r.status != 200 || got != want {
			t.Fatalf("%s: %d, %d entries, want %d: %s", app, r.status, got, want, r.body)
		}
	}
	for i := 0; i < 6; i++ {
		tg.pushNoFlush(t, "", map[string]string{"app": "replicas"}, entry{ns(base.Add(time.Duration(i) * time.Second)), "line " + string(rune('a'+i))})
	}
	ask("replicas", 6)
	if seen[0].Load() == 0 || seen[1].Load() == 0 {
		t.Fatalf("requests per front: %d and %d, want both used", seen[0].Load(), seen[1].Load())
	}
	// The first front goes away: its address refuses connections.
	proxies[0].Close()
	for i := 0; i < 6; i++ {
		tg.pushNoFlush(t, "", map[string]string{"app": "one-front"}, entry{ns(base.Add(time.Duration(i) * time.Second)), "line " + string(rune('a'+i))})
		r := tg.get(t, "/loki/api/v1/labels", "", nil, map[string]string{"Cache-Control": "no-cache"})
		if r.status != 200 {
			t.Fatalf("labels with one front stopped: %d %s", r.status, r.body)
		}
	}
	ask("one-front", 6)
}

// TestStorageNodeDown: with one storage node of the cluster stopped,
// VictoriaLogs cannot answer completely, and vloki answers 503 rather
// than a partial answer; the cluster back, answers are whole again.
func TestStorageNodeDown(t *testing.T) {
	b, cluster := vltest.ClusterBackend(t, 1)
	tg, _ := serve(t, config.Default(), b.Client, "cluster")
	for i := 0; i < 20; i++ {
		tg.pushNoFlush(t, "", map[string]string{"app": "down", "pod": string(rune('a' + i))}, entry{ns(base.Add(time.Duration(i) * time.Second)), "line"})
	}
	b.Sync(t)
	q := rangeParams(`{app="down"}`, base, base.Add(time.Hour), 100, "forward")
	whole := tg.get(t, "/loki/api/v1/query_range", "", q, nil)
	if n := strings.Count(string(whole.body), `,"line"]`); whole.status != 200 || n != 20 {
		t.Fatalf("whole cluster: %d, %d entries: %s", whole.status, n, whole.body)
	}
	cluster.Storage[1].Stop()
	for _, path := range []string{"/loki/api/v1/query_range", "/loki/api/v1/labels", "/loki/api/v1/series"} {
		p := q
		if path == "/loki/api/v1/series" {
			p = url.Values{"match[]": {`{app="down"}`}, "start": q["start"], "end": q["end"]}
		}
		r := tg.get(t, path, "", p, map[string]string{"Cache-Control": "no-cache"})
		if r.status != http.StatusServiceUnavailable {
			t.Errorf("%s with a storage node down: %d %s, want 503", path, r.status, r.body)
		}
	}
	if err := cluster.Storage[1].Start(); err != nil {
		t.Fatal(err)
	}
	again := tg.get(t, "/loki/api/v1/query_range", "", q, map[string]string{"Cache-Control": "no-cache"})
	if n := strings.Count(string(again.body), `,"line"]`); again.status != 200 || n != 20 {
		t.Fatalf("cluster back: %d, %d entries: %s", again.status, n, again.body)
	}
}

// TestReplicasSeeEachOther: two vloki replicas on one cluster. A tail open
// on the first receives, once each, what is pushed through the second
// (through VictoriaLogs' live tail) and through itself; every push is then
// queried back through both.
func TestReplicasSeeEachOther(t *testing.T) {
	b, _ := vltest.ClusterBackend(t, 1)
	cfg := config.Default()
	cfg.Auth.Enabled = true
	cfg.Backend.URL = b.Client.BaseURL() // as configured: tails follow VictoriaLogs' tail too
	first, _ := serve(t, cfg, b.Client, "first")
	second, _ := serve(t, cfg, b.Client, "second")
	labels := map[string]string{"app": "replicas"}
	// VictoriaLogs' tail shows a stream it has not indexed yet only after
	// its look-back: make the stream known first.
	first.pushNoFlush(t, "team", labels, entry{ns(time.Now().Add(-time.Hour)), "before"})
	b.Sync(t)
	conn := dialTailAs(t, first, "team", url.Values{"query": {`{app="replicas"}`}, "start": {ns(time.Now().Add(-time.Minute))}})
	r := readTailAll(conn)
	time.Sleep(100 * time.Millisecond)
	var lines []string
	for i := range 4 {
		via := []target{first, second}[i%2]
		line := fmt.Sprintf("pushed through replica %d, entry %d", i%2+1, i)
		via.pushNoFlush(t, "team", labels, entry{ns(time.Now()), line})
		lines = append(lines, line)
	}
	r.waitFor(t, lines)
	time.Sleep(3 * time.Second) // both sources have delivered by now
	r.check(t, lines)
	b.Sync(t)
	for _, tg := range []target{first, second} {
		q := rangeParams(`{app="replicas"}`, time.Now().Add(-2*time.Hour), time.Now().Add(time.Minute), 100, "forward")
		got := tg.get(t, "/loki/api/v1/query_range", "team", q, map[string]string{"Cache-Control": "no-cache"})
		for _, l := range lines {
			if !strings.Contains(string(got.body), l) {
				t.Errorf("%s does not answer %q: %d %s", tg.url, l, got.status, got.body)
			}
		}
	}
}
