package integration

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/lokidata"
)

// TestLimitWalkMatchesReference pushes entries over several hours, with
// bursts of equal timestamps larger than the limits, and checks every
// (direction, limit) answer against the first-N-in-order reference. It
// exercises the growing windows, full batches and equal-timestamp edges.
func TestLimitWalkMatchesReference(t *testing.T) {
	type pushed struct {
		app  string
		ts   int64
		line string
	}
	r := rand.New(rand.NewPCG(7, 7))
	var all []pushed
	byApp := map[string][]entry{}
	for i := 0; i < 300; i++ {
		app := []string{"w1", "w2", "w3"}[r.IntN(3)]
		ts := base.Add(time.Duration(r.IntN(5*3600)) * time.Second)
		if i%50 == 0 { // a burst on one timestamp across streams
			for j := 0; j < 12; j++ {
				p := pushed{[]string{"w1", "w2", "w3"}[j%3], ts.UnixNano(), fmt.Sprintf("burst-%d-%d", i, j)}
				all = append(all, p)
				byApp[p.app] = append(byApp[p.app], entry{ns(ts), p.line})
			}
			continue
		}
		p := pushed{app, ts.UnixNano(), fmt.Sprintf("line-%d", i)}
		all = append(all, p)
		byApp[app] = append(byApp[app], entry{ns(ts), p.line})
	}
	// Loki orders entries of different streams sharing a timestamp by
	// ascending stream fingerprint, in both directions.
	fingerprint := func(app string) uint64 {
		return lokidata.Labels{{Name: "app", Value: app}, {Name: "service_name", Value: app}}.Hash()
	}
	// Entries of one stream and timestamp come in push order (reversed
	// backward); which of them the limit keeps is what this test checks,
	// their order after Loki's frontend sort TestSameTimestampOrderMatchesLoki.
	reference := func(backward bool, limit int) string {
		s := append([]pushed(nil), all...)
		sort.SliceStable(s, func(i, j int) bool {
			if s[i].ts != s[j].ts {
				return (s[i].ts > s[j].ts) == backward
			}
			return fingerprint(s[i].app) < fingerprint(s[j].app)
		})
		if backward {
			reverseTies(s, func(a, b pushed) bool { return a.ts == b.ts && a.app == b.app })
		}
		if len(s) > limit {
			s = s[:limit]
		}
		groups := map[string][]string{}
		for _, p := range s {
			groups[p.app] = append(groups[p.app], p.line)
		}
		var parts []string
		for _, app := range []string{"w1", "w2", "w3"} {
			if g := groups[app]; len(g) > 0 {
				parts = append(parts, app+":"+strings.Join(g, ","))
			}
		}
		return strings.Join(parts, " ")
	}
	// With vloki the sole writer, the stream index cuts the batches
	// (logs.walkIndexed); without it, windows do.
	for tenantID, soleWriter := range map[string]string{"walk": "auto", "walk-indexed": "on"} {
		for _, tg := range targetsWith(t, func(c *config.Config) { c.Backend.SoleWriter = soleWriter }) {
			t.Run(tg.name+"/"+tenantID, func(t *testing.T) {
				for app, es := range byApp {
					tg.pushJSON(t, tenantID, jsonPush(map[string]string{"app": app}, es...))
				}
				for _, dir := range []string{"backward", "forward"} {
					for _, limit := range []int{1, 5, 11, 12, 13, 100, 299, 500} {
						got := summarize(decodeStreams(t, tg.get(t, "/loki/api/v1/query_range", tenantID,
							rangeParams(`{app=~"w.*"}`, base, base.Add(6*time.Hour), limit, dir), nil)))
						if want := reference(dir == "backward", limit); sortBursts(got) != sortBursts(want) {
							t.Errorf("%s limit %d:\n got  %.300s\n want %.300s", dir, limit, got, want)
						}
					}
				}
			})
		}
	}
}

// reverseTies reverses each run of consecutive elements that tie.
func reverseTies[T any](s []T, tie func(a, b T) bool) {
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && tie(s[i], s[j]) {
			j++
		}
		slices.Reverse(s[i:j])
		i = j
	}
}

// sortBursts sorts each run of a summary's burst-<i>-<j> lines of one
// burst, leaving which lines are there as they are.
func sortBursts(summary string) string {
	var parts []string
	for _, part := range strings.Split(summary, " ") {
		app, list, _ := strings.Cut(part, ":")
		lines := strings.Split(list, ",")
		burst := func(l string) string {
			if !strings.HasPrefix(l, "burst-") {
				return ""
			}
			return l[:strings.LastIndexByte(l, '-')]
		}
		for i := 0; i < len(lines); {
			j := i + 1
			for j < len(lines) && burst(lines[i]) != "" && burst(lines[j]) == burst(lines[i]) {
				j++
			}
			sort.Strings(lines[i:j])
			i = j
		}
		parts = append(parts, app+":"+strings.Join(lines, ","))
	}
	return strings.Join(parts, " ")
}

// TestWalkAsksRestWhole: a log query over a range whose newest (or,
// forward, oldest) hour holds few rows asks for the rest of the range
// whole once (logs.probeRest), with a line filter or without one. Rare
// needles and a sparse stream come back whole; a dense older part (more
// than a batch: 2,600 lines) is dropped and walked by windows. Every
// (query, direction, limit) answer is checked against the first-N-in-order
// reference.
func TestWalkAsksRestWhole(t *testing.T) {
	type pushed struct {
		app  string
		ts   time.Time
		line string
	}
	r := rand.New(rand.NewPCG(11, 3))
	var all []pushed
	at := func(i int, from, span time.Duration) time.Time {
		return base.Add(from + time.Duration(r.Int64N(int64(span))/1e3*1e3) + time.Duration(i)) // unique ns
	}
	for i := range 7 {
		all = append(all, pushed{[]string{"p1", "p2"}[i%2], at(i, 0, 6*time.Hour), fmt.Sprintf("needle-%d", i)})
	}
	for i := range 2600 { // only in hours 1 to 5: the first and last hours hold none
		all = append(all, pushed{[]string{"p1", "p2"}[i%2], at(10+i, time.Hour, 4*time.Hour), fmt.Sprintf("bulk-%d", i)})
	}
	for i := range 40 { // a sparse stream over the whole range
		all = append(all, pushed{"p3", at(5000+i, 0, 6*time.Hour), fmt.Sprintf("sparse-%d", i)})
	}
	apps := []string{"p1", "p2", "p3"}
	reference := func(keep func(pushed) bool, backward bool, limit int) string {
		var s []pushed
		for _, p := range all {
			if keep(p) {
				s = append(s, p)
			}
		}
		sort.Slice(s, func(i, j int) bool { return s[i].ts.Before(s[j].ts) == !backward })
		s = s[:min(len(s), limit)]
		var parts []string
		for _, app := range apps {
			var lines []string
			for _, p := range s {
				if p.app == app {
					lines = append(lines, p.line)
				}
			}
			if len(lines) > 0 {
				parts = append(parts, app+":"+strings.Join(lines, ","))
			}
		}
		return strings.Join(parts, " ")
	}
	queries := map[string]func(pushed) bool{
		`{app=~"p1|p2"} |= "needle"`: func(p pushed) bool { return p.app != "p3" && strings.Contains(p.line, "needle") },
		`{app=~"p1|p2"} |= "bulk"`:   func(p pushed) bool { return p.app != "p3" && strings.Contains(p.line, "bulk") },
		`{app="p3"}`:                 func(p pushed) bool { return p.app == "p3" },
		`{app=~"p.*"}`:               func(pushed) bool { return true },
	}
	// With vloki the sole writer, the stream index sizes the first window
	// (logs.firstSpan) and cuts the batches of the queries without a line
	// filter (logs.walkIndexed); shared, every query walks by windows.
	for tenantID, soleWriter := range map[string]string{"probe": "off", "probe-indexed": "on"} {
		for _, tg := range targetsWith(t, func(c *config.Config) { c.Backend.SoleWriter = soleWriter }) {
			t.Run(tg.name+"/"+tenantID, func(t *testing.T) {
				for _, app := range apps {
					var es []entry
					for _, p := range all {
						if p.app == app {
							es = append(es, entry{ns(p.ts), p.line})
						}
					}
					tg.pushJSON(t, tenantID, jsonPush(map[string]string{"app": app}, es...))
				}
				for query, keep := range queries {
					for _, dir := range []string{"backward", "forward"} {
						for _, limit := range []int{1, 3, 100, 2100, 3000} {
							before := backendRequests(t, tg, "query_range")
							got := summarize(decodeStreams(t, tg.get(t, "/loki/api/v1/query_range", tenantID,
								rangeParams(query, base, base.Add(6*time.Hour), limit, dir), nil)))
							if want := reference(keep, dir == "backward", limit); got != want {
								t.Errorf("%s %s limit %d:\n got  %.300s\n want %.300s", query, dir, limit, got, want)
							}
							// The sparse stream whole (40 lines): its first
							// window's count, then the rest whole
							// (logs.restFits). A lower limit may cost a
							// request more: whether it cut a timestamp.
							if asked := backendRequests(t, tg, "query_range") - before; query == `{app="p3"}` && limit > 40 && asked > 2 {
								t.Errorf("%s %s limit %d: %v VictoriaLogs requests, want at most 2", query, dir, limit, asked)
							}
						}
					}
				}
			})
		}
	}
}
