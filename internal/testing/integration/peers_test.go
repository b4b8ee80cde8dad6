package integration

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/onewrite"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestSoleWriterReplicas runs two vloki replicas that together are the
// only writers into one VictoriaLogs (-backend.sole-writer-peers): b knows
// a's pushes as its own — label values from its stream index, range-query
// steps kept up to now — and no push through a is hidden from b: not a
// late one, nor one made while b could not be told of it.
func TestSoleWriterReplicas(t *testing.T) {
	proc, err := vltest.StartProcess(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	// unreachable: b refuses the deliveries of a's pushes; partitioned: a
	// refuses b's lease requests too.
	var unreachable, partitioned atomic.Bool
	a, b := soleWriterReplicas(t, proc.URL, nil, &unreachable, &partitioned)
	waitTrusted(t, a, b)

	const tenant = "peers"
	now := time.Now().Truncate(time.Minute)
	for _, pod := range []string{"p1", "p2"} {
		a.pushJSON(t, tenant, jsonPush(map[string]string{"app": "peer", "pod": pod},
			entry{ns(now.Add(-50 * time.Minute)), "one"}, entry{ns(now.Add(-20 * time.Minute)), "two"}, entry{ns(now.Add(-time.Minute)), "three"}))
	}
	values := b.get(t, "/loki/api/v1/label/pod/values", tenant, url.Values{"start": {ns(now.Add(-time.Hour))}, "end": {ns(now)}}, nil)
	if !strings.Contains(string(values.body), `"p1","p2"`) {
		t.Fatalf("b's pod values: %s", values.body)
	}
	if n := metricValue(t, b, "vloki_stream_index_streams"); n != 2 {
		t.Fatalf("b's stream index holds %v streams, want a's 2", n)
	}
	// b read the tenant's horizon before a's first push was written: the
	// pushes are all it needs for any range after.
	if n := metricValue(t, b, `vloki_label_answers_total{source="memory"}`); n != 1 {
		t.Fatalf("b answered %v label requests from memory, want 1", n)
	}

	q := `sum by (pod) (count_over_time({app="peer"}[5m]))`
	ask := func(end time.Time, cold bool) string {
		var hdr map[string]string
		if cold {
			hdr = map[string]string{"Cache-Control": "no-cache"}
		}
		p := url.Values{"query": {q}, "start": {ns(end.Add(-time.Hour))}, "end": {ns(end)}, "step": {"60"}}
		_, res := metricResult(t, b.get(t, "/loki/api/v1/query_range", tenant, p, hdr))
		return res
	}
	same := func(when string, end time.Time) {
		t.Helper()
		if warm, cold := ask(end, false), ask(end, true); warm != cold {
			t.Fatalf("%s: b answered\n%s\nwhere uncached it answers\n%s", when, warm, cold)
		}
	}
	same("a moving window", now)
	same("the window a step later", now.Add(time.Minute))
	if reused := metricValue(t, b, "vloki_extent_steps_reused_total"); reused < 50 {
		t.Fatalf("b reused only %v steps: nothing kept up to now to check", reused)
	}

	a.pushJSON(t, tenant, jsonPush(map[string]string{"app": "peer", "pod": "p1"}, entry{ns(now.Add(-40 * time.Minute)), "late"}))
	same("after a late push through a", now.Add(2*time.Minute))

	unreachable.Store(true)
	gaps := metricValue(t, b, "vloki_sole_writer_peers_gaps_total")
	began := time.Now()
	a.pushJSON(t, tenant, jsonPush(map[string]string{"app": "peer", "pod": "p2"}, entry{ns(now.Add(-30 * time.Minute)), "untold"}))
	if took := time.Since(began); took < time.Second {
		t.Fatalf("a acknowledged a push b was not told of in %v, before b's lease ran out", took)
	}
	same("after a push b was not told of", now.Add(3*time.Minute))
	unreachable.Store(false)
	waitTrusted(t, a, b)
	if metricValue(t, b, "vloki_sole_writer_peers_gaps_total") <= gaps {
		t.Fatal("b trusts again without starting over")
	}
	same("once b trusts again", now.Add(4*time.Minute))
	same("the window a step later", now.Add(5*time.Minute))

	// Cut off both ways, b cannot renew its lease: it answers without
	// its cache, even a frozen range, until it has started over.
	frozen := url.Values{"query": {`{app="peer"}`}, "start": {ns(now.Add(-70 * time.Minute))}, "end": {ns(now.Add(-45 * time.Minute))}}
	for range 3 { // stored the second time asked, served the third
		b.get(t, "/loki/api/v1/query_range", tenant, frozen, nil)
	}
	if hits := metricValue(t, b, "vloki_results_cache_hits_total"); hits < 1 {
		t.Fatalf("b's frozen answer was not cached (%v hits): nothing to check", hits)
	}
	partitioned.Store(true)
	unreachable.Store(true)
	a.pushJSON(t, tenant, jsonPush(map[string]string{"app": "peer", "pod": "p1"}, entry{ns(now.Add(-55 * time.Minute)), "cut off"}))
	if got := b.get(t, "/loki/api/v1/query_range", tenant, frozen, nil); !strings.Contains(string(got.body), "cut off") {
		t.Fatalf("b, cut off, served a frozen answer without a's push: %s", got.body)
	}
	partitioned.Store(false)
	unreachable.Store(false)
	waitTrusted(t, a, b)
	if got := b.get(t, "/loki/api/v1/query_range", tenant, frozen, nil); !strings.Contains(string(got.body), "cut off") {
		t.Fatalf("b, trusting again, hid a's push: %s", got.body)
	}
}

// TestDeleteAcrossSoleWriterReplicas: rows a delete request removed from
// storage leave what every replica learnt from pushes, not only the one
// that processed the request (a replica whose processor finds the request
// already processed would never learn it): label values, series, volumes
// and patterns of either replica no longer hold the deleted stream.
func TestDeleteAcrossSoleWriterReplicas(t *testing.T) {
	proc, err := vltest.StartProcess(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	dir := t.TempDir()
	var never atomic.Bool
	a, b := soleWriterReplicas(t, proc.URL, func(i int, cfg *config.Config) {
		cfg.Deletion.Mode, cfg.Deletion.CancelPeriod, cfg.Deletion.Dir = "filter-and-delete", 0, dir
		if i == 1 {
			// b never processes a request itself (both would race to):
			// it learns of the deletion from a alone.
			cfg.Deletion.Mode = "filter-only"
		}
		cfg.Patterns.Enabled = true
	}, &never, &never)
	waitTrusted(t, a, b)
	const tenant = "peer-deletes"
	at := time.Now().Add(-10 * time.Minute)
	var gone []entry
	for i := range 50 { // enough for a pattern
		gone = append(gone, entry{ns(at.Add(time.Duration(i) * time.Second)), fmt.Sprintf("user %d logged in from host-%d", i, i%7)})
	}
	a.pushJSON(t, tenant, jsonPush(map[string]string{"app": "gone"}, gone...))
	a.pushJSON(t, tenant, jsonPush(map[string]string{"app": "stays"}, entry{ns(at), "c"}))
	for _, r := range []target{a, b} {
		if paths, want := readPaths(t, r, tenant, at), "values=gone,stays series=gone,stays volume=gone,stays patterns=1"; paths != want {
			t.Fatalf("%s before: %s, want %s", r.url, paths, want)
		}
	}
	r := a.deleteCall(t, http.MethodPost, tenant, url.Values{"query": {`{app="gone"}`},
		"start": {unixSeconds(at.Add(-time.Minute))}, "end": {unixSeconds(at.Add(time.Minute))}})
	if r.status != http.StatusNoContent {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(string(a.deleteCall(t, http.MethodGet, tenant, nil).body), `"status":"processed"`) {
		if time.Now().After(deadline) {
			t.Fatal("not processed within a minute")
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, r := range []target{a, b} {
		if paths, want := readPaths(t, r, tenant, at), "values=stays series=stays volume=stays patterns=0"; paths != want {
			t.Errorf("%s after: %s, want %s", r.url, paths, want)
		}
	}
}

// soleWriterReplicas starts two vloki replicas on vlURL that name each
// other as -backend.sole-writer-peers; b refuses deliveries while
// unreachable is set, a lease requests while partitioned is; change, when
// set, changes replica i's configuration (a: 0, b: 1).
func soleWriterReplicas(t *testing.T, vlURL string, change func(int, *config.Config), unreachable, partitioned *atomic.Bool) (a, b target) {
	t.Helper()
	srvs := []*httptest.Server{httptest.NewUnstartedServer(nil), httptest.NewUnstartedServer(nil)}
	urls := []string{"http://" + srvs[0].Listener.Addr().String(), "http://" + srvs[1].Listener.Addr().String()}
	var out []target
	for i, srv := range srvs {
		cfg := config.Default()
		cfg.Auth.Enabled = true
		cfg.Storage.Path = t.TempDir()
		cfg.Ingester.QueryStoreMaxLookBackPeriod = -1
		cfg.Backend.URL, cfg.Backend.SoleWriter = vlURL, "on"
		cfg.Backend.SoleWriterPeers, cfg.Backend.SoleWriterSelf = urls, urls[i]
		if change != nil {
			change(i, &cfg)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		c, err := backend.New(vlURL, backend.NewHTTPTransport(), backend.Options{})
		if err != nil {
			t.Fatal(err)
		}
		app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), c, "external", func() {})
		if err != nil {
			t.Fatal(err)
		}
		h := app.Handler()
		if i == 0 {
			h = refusing(h, partitioned, "/vloki/peers/lease")
		} else {
			h = refusing(h, unreachable, "/vloki/peers/push", "/vloki/peers/failed")
		}
		srv.Config.Handler = h
		srv.Listener = onewrite.Install(srv.Config, srv.Listener)
		srv.Start()
		t.Cleanup(func() { srv.Close(); app.Close() })
		out = append(out, target{name: "external", url: urls[i], vl: c})
	}
	return out[0], out[1]
}

// refusing answers 503 to requests for paths while refuse is set.
func refusing(h http.Handler, refuse *atomic.Bool, paths ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuse.Load() && slices.Contains(paths, r.URL.Path) {
			http.Error(w, "unreachable", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// waitTrusted waits until every replica holds the others' leases.
func waitTrusted(t *testing.T, replicas ...target) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for _, r := range replicas {
		for metricValue(t, r, "vloki_sole_writer_peers_trusted") != 1 {
			if time.Now().After(deadline) {
				t.Fatalf("%s never trusted its peers", r.url)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
