package integration

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestRecentLabelsSeeEveryPush: with vloki the sole writer and label
// answers holding whole UTC days (-ingester.chunk-idle-period 0), label
// names and values over today are served from the results cache between pushes,
// and every acknowledged push is in the next answer: each equals, byte
// for byte, the answer of a vloki without a results cache. Three ranges over
// today share an answer (their days are its key): the third is a hit.
func TestRecentLabelsSeeEveryPush(t *testing.T) {
	for _, b := range vltest.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			start := func(cache bool) target {
				cfg := config.Default()
				cfg.Auth.Enabled = true
				cfg.Backend.SoleWriter = "on"
				cfg.Ingester.ChunkIdlePeriod = 0 // whole UTC days: answers settled by pushes
				cfg.Frontend.CacheResults = cache
				tg, _ := serve(t, cfg, b.Client, fmt.Sprintf("%s-cache-%v", b.Name, cache))
				return tg
			}
			cached, uncached := start(true), start(false)
			now := time.Now()
			today := now.UTC().Truncate(24 * time.Hour)
			for i := range 4 {
				labels := map[string]string{"app": fmt.Sprintf("a%d", i), fmt.Sprintf("l%d", i): "v"}
				cached.pushJSON(t, "recent", jsonPush(labels, entry{ns(now.Add(time.Duration(i) * time.Second)), "line"}))
				for _, path := range []string{"/loki/api/v1/labels", "/loki/api/v1/label/app/values"} {
					for j := range 3 { // three ranges over today: one answer, stored the second time asked
						params := url.Values{"start": {ns(today.Add(time.Duration(j) * time.Second))}, "end": {ns(now.Add(time.Duration(j) * time.Millisecond))}}
						want := uncached.get(t, path, "recent", params, nil)
						got := cached.get(t, path, "recent", params, nil)
						if got.status != 200 || string(got.body) != string(want.body) {
							t.Fatalf("push %d, %s: cached %d %s, want %s", i, path, got.status, got.body, want.body)
						}
					}
				}
			}
			if hits := metricValue(t, cached, "vloki_results_cache_hits_total"); hits < 8 {
				t.Fatalf("%v answers came from the cache; want at least 8", hits)
			}
		})
	}
}
