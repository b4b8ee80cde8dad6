package integration

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestStreamIndexMatchesStorage: label names and values answered by a
// vloki with the stream index on (its rule of recent ranges off: whole
// UTC days) equal, byte for byte, those of a vloki
// asking VictoriaLogs, over random streams (entries out of order, gaps),
// random ranges (inside, across and between a stream's entries), random
// selectors and names; most of them come from memory.
func TestStreamIndexMatchesStorage(t *testing.T) {
	for _, b := range vltest.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			withIndex := func(mode string) target {
				cfg := config.Default()
				cfg.Auth.Enabled = true
				cfg.Backend.SoleWriter = mode
				cfg.Ingester.ChunkIdlePeriod = 0 // whole UTC days, as the storage answers
				cfg.Frontend.CacheResults = false
				tg, _ := serve(t, cfg, b.Client, b.Name+"-index-"+mode)
				return tg
			}
			memory, storage := withIndex("on"), withIndex("off")
			rng := rand.New(rand.NewPCG(7, uint64(len(b.Name))))
			pushRandomStreams(t, memory, rng)
			for i := range 300 {
				path, params := randomLabelRequest(rng)
				got := memory.get(t, path, "index", params, nil)
				want := storage.get(t, path, "index", params, nil)
				if got.status != want.status || string(got.body) != string(want.body) {
					t.Fatalf("request %d %s?%s:\nindex   %d %s\nstorage %d %s", i, path, params.Encode(), got.status, got.body, want.status, want.body)
				}
			}
			fromMemory := labelAnswers(t, memory, "memory")
			if fromMemory < 150 {
				t.Errorf("only %d of 300 answers came from memory", fromMemory)
			}
			t.Logf("%d of 300 answers from memory", fromMemory)
		})
	}
}

// pushRandomStreams pushes 40 streams of one to four entries each, at
// random times within two hours of base, in shuffled pushes.
func pushRandomStreams(t *testing.T, tg target, rng *rand.Rand) {
	type push struct {
		labels map[string]string
		e      entry
	}
	var pushes []push
	for s := range 40 {
		labels := map[string]string{"app": pick(rng, "api", "db", "web"), "env": pick(rng, "prod", "dev"), "pod": fmt.Sprintf("p%d", s)}
		if rng.IntN(3) == 0 {
			labels["team"] = pick(rng, "red", "blue")
		}
		for e := range 1 + rng.IntN(4) {
			ts := base.Add(time.Duration(rng.Int64N(int64(2 * time.Hour))))
			pushes = append(pushes, push{labels, entry{ns(ts), fmt.Sprintf("line %d", e)}})
		}
	}
	rng.Shuffle(len(pushes), func(i, j int) { pushes[i], pushes[j] = pushes[j], pushes[i] })
	for _, p := range pushes {
		tg.pushJSON(t, "index", jsonPush(p.labels, p.e))
	}
}

func randomLabelRequest(rng *rand.Rand) (string, url.Values) {
	start := base.Add(time.Duration(rng.Int64N(int64(150*time.Minute))) - 15*time.Minute)
	end := start.Add(time.Duration(rng.Int64N(int64(90 * time.Minute))))
	params := url.Values{"start": {ns(start)}, "end": {ns(end)}}
	if rng.IntN(2) == 0 {
		params.Set("query", pick(rng, `{app="api"}`, `{env=~"prod|dev", app!="db"}`, `{team=""}`, `{team=~".+"}`, `{pod=~"p1.*"}`))
	}
	if rng.IntN(3) == 0 {
		return "/loki/api/v1/labels", params
	}
	return "/loki/api/v1/label/" + pick(rng, "app", "env", "pod", "team", "absent") + "/values", params
}

// labelAnswers reads vloki_label_answers_total{source} from /metrics.
func labelAnswers(t *testing.T, tg target, source string) int {
	r := tg.get(t, "/metrics", "", nil, nil)
	m := regexp.MustCompile(`vloki_label_answers_total\{source="` + source + `"\} (\d+)`).FindSubmatch(r.body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}
