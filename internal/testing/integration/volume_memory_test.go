package integration

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestVolumesFromMemoryAnswerAsStorage: a sole-writer vloki sums volumes
// and index stats over recent ranges from its stream index; every answer
// must equal that
// of a vloki asking VictoriaLogs, over the same rows: random selectors,
// grouping labels (aggregateBy=labels too), steps and ranges, on streams
// missing labels, with empty lines and late entries.
func TestVolumesFromMemoryAnswerAsStorage(t *testing.T) {
	for _, b := range vltest.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Auth.Enabled = true
			cfg.Backend.SoleWriter = "on"
			memory, _ := serve(t, cfg, b.Client, b.Name)
			cfg.Backend.SoleWriter = "off"
			storage, _ := serve(t, cfg, b.Client, b.Name)
			tenant := fmt.Sprintf("vol%d", time.Now().UnixNano())
			rng := rand.New(rand.NewPCG(5, uint64(len(b.Name))))
			now := time.Now()
			for range 40 {
				labels := map[string]string{"job": "vol"}
				for _, l := range []string{"app", "env", "region"} {
					if rng.IntN(4) > 0 {
						labels[l] = pick(rng, "a", "b", "c", "")
					}
				}
				var es []entry
				for range 1 + rng.IntN(30) {
					at := now.Add(-time.Duration(rng.Int64N(int64(90 * time.Minute))))
					es = append(es, entry{ns(at), strings.Repeat("x", rng.IntN(3)*rng.IntN(40))})
				}
				memory.pushJSON(t, tenant, jsonPush(labels, es...))
			}
			vltest.Flush(t, b.Client)
			before := metricValue(t, memory, `vloki_volume_answers_total{source="memory"}`)
			for i := range 60 {
				p := volumeParams(rng, now)
				path := pick(rng, "/loki/api/v1/index/volume", "/loki/api/v1/index/volume_range", "/loki/api/v1/index/stats")
				noCache := map[string]string{"Cache-Control": "no-cache"}
				got, want := memory.get(t, path, tenant, p, noCache), storage.get(t, path, tenant, p, noCache)
				if got.status != want.status || string(got.body) != string(want.body) {
					t.Fatalf("%d %s?%s:\nmemory  %d %s\nstorage %d %s", i, path, p.Encode(), got.status, got.body, want.status, want.body)
				}
			}
			if after := metricValue(t, memory, `vloki_volume_answers_total{source="memory"}`); after-before < 50 {
				t.Fatalf("only %v of 60 answers came from memory: the check proves little", after-before)
			}
		})
	}
}

func volumeParams(rng *rand.Rand, now time.Time) url.Values {
	sel := pick(rng, `{job="vol"}`, `{app="a"}`, `{job="vol", env=~"a|b"}`, `{region!="c", job=~".+"}`, `{app=~".+"}`)
	start := now.Add(-time.Duration(rng.Int64N(int64(80 * time.Minute))))
	end := start.Add(time.Duration(rng.Int64N(int64(60 * time.Minute))))
	p := url.Values{"query": {sel}, "start": {ns(start)}, "end": {ns(end)}, "limit": {"100"}}
	if rng.IntN(2) == 0 {
		p.Set("step", pick(rng, "60", "300", "17", "3600"))
	}
	switch rng.IntN(3) {
	case 0:
		p.Set("targetLabels", pick(rng, "app", "env,region", "app,region,job"))
	case 1:
		p.Set("aggregateBy", "labels")
		p.Set("targetLabels", pick(rng, "app,env", "region"))
	}
	return p
}
