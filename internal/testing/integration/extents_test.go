package integration

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
)

// Range queries answered partly from kept steps (extents) must fail and
// change exactly as cold ones: Loki's per-sub-query series limit counts
// the kept steps' series too, and a push of old entries is never hidden.
func TestExtentsAnswerAsCold(t *testing.T) {
	h := time.Now().Add(-72 * time.Hour).Truncate(time.Hour)
	for _, tg := range targetsWith(t, func(c *config.Config) { c.Limits.MaxQuerySeries = 10 }) {
		t.Run(tg.name, func(t *testing.T) {
			tenant := fmt.Sprintf("ext%d", time.Now().UnixNano()) // the embedded engine outlives one run
			for i := 1; i <= 8; i++ {
				tg.pushJSON(t, tenant, jsonPush(map[string]string{"app": "lim", "pod": fmt.Sprintf("a%d", i)}, entry{ns(h.Add(10 * time.Minute)), "early"}))
				tg.pushJSON(t, tenant, jsonPush(map[string]string{"app": "lim", "pod": fmt.Sprintf("b%d", i)}, entry{ns(h.Add(40 * time.Minute)), "late"}))
			}
			ask := func(q string, end time.Time, cold bool) response {
				var hdr map[string]string
				if cold {
					hdr = map[string]string{"Cache-Control": "no-cache"}
				}
				p := url.Values{"query": {q}, "start": {ns(h)}, "end": {ns(end)}, "step": {"60"}}
				return tg.get(t, "/loki/api/v1/query_range", tenant, p, hdr)
			}
			// 8 series in the first half hour, 8 others in the second: one
			// sub-query of the whole hour holds 16 (> 10), the final answer none.
			limited := `count_over_time({app="lim"}[1m]) > 1000000`
			full := h.Add(59 * time.Minute)
			cold := ask(limited, full, true)
			if cold.status != http.StatusBadRequest || !strings.Contains(string(cold.body), "maximum number of series (10)") {
				t.Fatalf("cold: %d %s", cold.status, cold.body)
			}
			if r := ask(limited, h.Add(30*time.Minute), false); r.status != http.StatusOK {
				t.Fatalf("first half: %d %s", r.status, r.body)
			}
			if r := ask(limited, full, false); r.status != cold.status || string(r.body) != string(cold.body) {
				t.Errorf("from kept steps: %d %s, cold %d %s", r.status, r.body, cold.status, cold.body)
			}
			if reused := metricValue(t, tg, "vloki_extent_steps_reused_total"); reused < 30 {
				t.Fatalf("only %v steps reused: the check proves nothing", reused)
			}

			summed := `sum(count_over_time({app="lim"}[5m]))`
			if r := ask(summed, h.Add(30*time.Minute), false); r.status != http.StatusOK {
				t.Fatalf("summed: %d %s", r.status, r.body)
			}
			tg.pushJSON(t, tenant, jsonPush(map[string]string{"app": "lim", "pod": "a1"}, entry{ns(h.Add(12 * time.Minute)), "pushed late"}))
			_, warm := metricResult(t, ask(summed, full, false))
			_, want := metricResult(t, ask(summed, full, true))
			if warm != want {
				t.Errorf("after a push of old entries: %s, cold %s", warm, want)
			}
			if !strings.Contains(want, `"9"`) { // 8 early entries and the late one in a window
				t.Errorf("the late entry is not in the cold answer: the check proves nothing: %s", want)
			}
		})
	}
}

// TestSoleWriterExtentsAnswerAsCold: with vloki the only writer, range
// queries at a live "now" reuse steps up to now, and every push drops the
// steps it touches: under pushes of entries at any time in the range
// (late, in between, current), each refreshed answer equals a cold one.
func TestSoleWriterExtentsAnswerAsCold(t *testing.T) {
	for _, tg := range targetsWith(t, func(c *config.Config) { c.Backend.SoleWriter = "on" }) {
		t.Run(tg.name, func(t *testing.T) {
			tenant := fmt.Sprintf("live%d", time.Now().UnixNano())
			rng := rand.New(rand.NewPCG(11, uint64(len(tg.name))))
			queries := []string{`sum by (app) (count_over_time({job="live"}[1m]))`, `rate({job="live", app="a"}[5m])`, `sum(bytes_over_time({job="live"}[2m]))`}
			for i := range 30 {
				now := time.Now()
				for range rng.IntN(4) {
					at := now.Add(-time.Duration(rng.Int64N(int64(40 * time.Minute))))
					tg.pushJSON(t, tenant, jsonPush(map[string]string{"job": "live", "app": pick(rng, "a", "b")}, entry{ns(at), fmt.Sprintf("entry %d", i)}))
				}
				for _, q := range queries {
					p := url.Values{"query": {q}, "start": {ns(now.Add(-30 * time.Minute).Truncate(15 * time.Second))}, "end": {ns(now)}, "step": {"15"}}
					_, warm := metricResult(t, tg.get(t, "/loki/api/v1/query_range", tenant, p, nil))
					_, cold := metricResult(t, tg.get(t, "/loki/api/v1/query_range", tenant, p, map[string]string{"Cache-Control": "no-cache"}))
					if warm != cold {
						t.Fatalf("round %d, %s:\nwarm %s\ncold %s", i, q, warm, cold)
					}
				}
				time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
			}
			// Answers kept by their steps (121 steps each) reuse them too; they
			// serve many refreshes the extents would have, hence the lower bar.
			reused := metricValue(t, tg, "vloki_extent_steps_reused_total") + 121*metricValue(t, tg, "vloki_results_cache_steps_hits_total")
			if reused < 500 {
				t.Fatalf("only %v steps reused: the check proves nothing", reused)
			}
			t.Logf("%v steps reused", reused)
		})
	}
}
