package integration

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/cachetest"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestSharedResultsCache runs two vloki replicas on one VictoriaLogs,
// sharing memcached or Redis: an answer one replica cached is served by
// the other; a late push through one invalidates for both; tenants never
// share answers.
func TestSharedResultsCache(t *testing.T) {
	proc, err := vltest.StartProcess(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	memcached, redis := cachetest.Memcached(t), cachetest.Redis(t)
	engines := map[string]func(*config.Config){
		"memcached": func(c *config.Config) {
			c.Frontend.ResultsCacheBackend, c.Frontend.MemcachedAddresses = "memcached", []string{memcached}
		},
		"redis": func(c *config.Config) {
			c.Frontend.ResultsCacheBackend, c.Frontend.RedisAddress = "redis", redis
		},
	}
	for name, setup := range engines {
		t.Run(name, func(t *testing.T) {
			a, b := replica(t, proc.URL, setup), replica(t, proc.URL, setup)
			app := "shared-" + name
			old := time.Now().Add(-2 * time.Hour)
			a.pushJSON(t, "t1", jsonPush(map[string]string{"app": app}, entry{ns(old), "first"}))
			a.pushJSON(t, "t2", jsonPush(map[string]string{"app": app}, entry{ns(old), "other tenant"}))
			q := url.Values{"query": {`{app="` + app + `"}`}, "start": {ns(old.Add(-time.Hour))}, "end": {ns(old.Add(time.Hour))}}
			a.get(t, "/loki/api/v1/query_range", "t1", q, nil) // an answer is cached the second time asked
			first := a.get(t, "/loki/api/v1/query_range", "t1", q, nil)
			if !strings.Contains(string(first.body), `"first"`) {
				t.Fatalf("a: %s", first.body)
			}
			if got := b.get(t, "/loki/api/v1/query_range", "t1", q, nil); string(got.body) != string(first.body) || metricValue(t, b, "vloki_results_cache_hits_total") != 1 {
				t.Fatalf("b did not serve a's cached answer (hits %v): %s", metricValue(t, b, "vloki_results_cache_hits_total"), got.body)
			}
			if got := b.get(t, "/loki/api/v1/query_range", "t2", q, nil); !strings.Contains(string(got.body), "other tenant") || strings.Contains(string(got.body), `"first"`) {
				t.Fatalf("tenant t2 got %s", got.body)
			}
			b.pushJSON(t, "t1", jsonPush(map[string]string{"app": app}, entry{ns(old.Add(time.Minute)), "late"}))
			if got := a.get(t, "/loki/api/v1/query_range", "t1", q, nil); !strings.Contains(string(got.body), `"late"`) {
				t.Fatalf("a hid a late push made through b: %s", got.body)
			}
		})
	}
}

func replica(t *testing.T, vlURL string, setup func(*config.Config)) target {
	t.Helper()
	c, err := backend.New(vlURL, backend.NewHTTPTransport(), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Auth.Enabled = true
	setup(&cfg)
	tg, _ := serve(t, cfg, c, "external")
	return tg
}

// metricValue reads one unlabelled metric from /metrics.
func metricValue(t *testing.T, tg target, name string) float64 {
	t.Helper()
	r := tg.get(t, "/metrics", "", nil, nil)
	for _, l := range strings.Split(string(r.body), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				return f
			}
		}
	}
	return -1
}
