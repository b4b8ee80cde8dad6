package integration

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestIndexedWalkAsksOnceABatch: with vloki the sole writer, a log
// query's batches are cut where the stream index puts the limit's entry
// (logs.walkIndexed): a sparse stream among many over a day is one
// VictoriaLogs request, where the growing windows took one per window and
// another for each window's edge; a full batch is one too, with no
// request to see whether the limit cut through a timestamp's entries. A
// line filter over the sparse stream is one request too. Every answer
// is checked against the first-N-in-order reference on both backends.
func TestIndexedWalkAsksOnceABatch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 21))
	day := 24 * time.Hour
	streams := map[string][]int64{}
	for i := range 30 {
		streams["sparse"] = append(streams["sparse"], base.Add(time.Duration(r.Int64N(int64(day)))).UnixNano()+int64(i))
	}
	for s := range 20 {
		app := fmt.Sprintf("dense%02d", s)
		for i := range 150 {
			streams[app] = append(streams[app], base.Add(time.Duration(r.Int64N(int64(day)))).UnixNano()+int64(i))
		}
	}
	line := func(app string, ts int64) string { return app + " " + strconv.FormatInt(ts, 10) }
	reference := func(match func(string) bool, backward bool, limit int) string {
		type e struct {
			app string
			ts  int64
		}
		var all []e
		for app, ts := range streams {
			if match(app) {
				for _, x := range ts {
					all = append(all, e{app, x})
				}
			}
		}
		slices.SortFunc(all, func(a, b e) int {
			if backward {
				return int(b.ts - a.ts)
			}
			return int(a.ts - b.ts)
		})
		all = all[:min(limit, len(all))]
		slices.SortStableFunc(all, func(a, b e) int { return strings.Compare(a.app, b.app) })
		var out []string
		for _, x := range all {
			out = append(out, line(x.app, x.ts))
		}
		return strings.Join(out, ",")
	}
	cases := []struct {
		query string
		match func(string) bool
		limit int
		// requests: one a batch of at most 2,000 rows (logs.maxBatch)
		requests float64
	}{
		{`{app="sparse"}`, func(a string) bool { return a == "sparse" }, 100, 1},
		{`{app=~"dense.*"}`, func(a string) bool { return strings.HasPrefix(a, "dense") }, 100, 1},
		{`{app=~"dense.*"} | drop __error__`, func(a string) bool { return strings.HasPrefix(a, "dense") }, 2500, 2},
		// A line filter: the first window spans what holds a batch of
		// the streams' entries, the whole range for the sparse stream.
		{`{app="sparse"} |= "sparse"`, func(a string) bool { return a == "sparse" }, 100, 1},
	}
	for _, tg := range targetsWith(t, func(c *config.Config) { c.Backend.SoleWriter = "on" }) {
		t.Run(tg.name, func(t *testing.T) {
			for app, ts := range streams {
				var es []entry
				for _, x := range ts {
					es = append(es, entry{strconv.FormatInt(x, 10), line(app, x)})
				}
				tg.pushJSON(t, "iwalk", jsonPush(map[string]string{"app": app}, es...))
			}
			for _, c := range cases {
				for _, dir := range []string{"backward", "forward"} {
					before := backendRequests(t, tg, "query_range")
					res := decodeStreams(t, tg.get(t, "/loki/api/v1/query_range", "iwalk",
						rangeParams(c.query, base.Add(-time.Hour), base.Add(day+time.Hour), c.limit, dir), nil))
					asked := backendRequests(t, tg, "query_range") - before
					var got []string
					for _, s := range res.Data.Result {
						for _, v := range s.Values {
							got = append(got, v[1].(string))
						}
					}
					slices.SortStableFunc(got, func(a, b string) int { return strings.Compare(strings.Fields(a)[0], strings.Fields(b)[0]) })
					if want := reference(c.match, dir == "backward", c.limit); strings.Join(got, ",") != want {
						t.Errorf("%s %s: got %d entries, want the reference's %d", c.query, dir, len(got), strings.Count(want, ",")+1)
					}
					if asked != c.requests {
						t.Errorf("%s %s: %v VictoriaLogs requests, want %v", c.query, dir, asked, c.requests)
					}
				}
			}
		})
	}
}

// backendRequests is the VictoriaLogs requests the route's requests
// have cost so far (vloki_backend_requests_per_request's sum).
func backendRequests(t *testing.T, tg target, route string) float64 {
	t.Helper()
	prefix := `vloki_backend_requests_per_request_sum{route="` + route + `"} `
	for _, l := range strings.Split(string(tg.get(t, "/metrics", "", nil, nil).body), "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	return 0
}

// TestIndexedTieCutsAsStorage: whether the limit cut through entries
// sharing a timestamp decides between one walk's answer and the replay of
// Loki's hourly merge (frontend.answerWalked). With vloki the sole writer
// the stream index's count at that timestamp tells it (logs.CutsTie);
// answers over bursts of one timestamp across eight streams, at limits
// that cut them, must be those of a vloki asking the storage.
func TestIndexedTieCutsAsStorage(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 4))
	byApp := map[string][]entry{}
	for b := range 40 {
		ts := base.Add(time.Duration(r.Int64N(int64(5 * time.Hour))))
		for s := range 8 {
			if r.IntN(4) > 0 {
				app := fmt.Sprintf("t%d", s)
				byApp[app] = append(byApp[app], entry{ns(ts), fmt.Sprintf("burst %d of %s", b, app)})
			}
		}
	}
	for app, es := range byApp {
		slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.ts, b.ts) })
		byApp[app] = es
	}
	for _, b := range vltest.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			serveWith := func(soleWriter string) target {
				cfg := config.Default()
				cfg.Auth.Enabled, cfg.Backend.SoleWriter = true, soleWriter
				tg, _ := serve(t, cfg, b.Client, b.Name)
				return tg
			}
			tg, storage := serveWith("on"), serveWith("auto") // storage: reads tenant ties as stored
			for app, es := range byApp {
				tg.pushJSON(t, "ties", jsonPush(map[string]string{"app": app}, es...))
			}
			vltest.Flush(t, b.Client) // searchable for the other vloki too
			for _, dir := range []string{"backward", "forward"} {
				for limit := 1; limit <= 60; limit++ {
					p := rangeParams(`{app=~"t.*"}`, base, base.Add(6*time.Hour), limit, dir)
					got := tg.get(t, "/loki/api/v1/query_range", "ties", p, nil)
					want := storage.get(t, "/loki/api/v1/query_range", "ties", p, nil)
					if g, w := summarize(decodeStreams(t, got)), summarize(decodeStreams(t, want)); g != w {
						t.Errorf("%s limit %d:\n got  %.300s\n want %.300s", dir, limit, g, w)
					}
				}
			}
		})
	}
}
