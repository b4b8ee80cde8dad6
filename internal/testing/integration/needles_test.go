package integration

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
)

// TestNeedleSearchReadsItsHours: over two days of lines holding 19- and
// 20-digit ids in 24 streams, a search for part of one id answers as the
// reference does, with the needle index on (vloki the only writer) and
// off; with it on, a search whose id lies in one hour asks VictoriaLogs
// once (for the streams of the id's bucket), where the walk over the two
// days asks at least twice (a first window, the rest).
func TestNeedleSearchReadsItsHours(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 8))
	type line struct {
		ts   time.Time
		text string
		pod  int
	}
	var all []line
	for i := range 2000 {
		id := fmt.Sprint(1e18 + r.Uint64N(9e18))
		if i%2 == 0 {
			id = fmt.Sprint(i%10) + id // a 19-digit id inside a 20-digit one
		}
		ts := base.Add(time.Duration(r.Int64N(int64(48*time.Hour))/1e3*1e3) + time.Duration(i))
		all = append(all, line{ts, `{"msg":"the queen","trace_id":"` + id + `"}`, r.IntN(24)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ts.Before(all[j].ts) })
	pods := make([][][2]string, 24)
	for _, l := range all {
		pods[l.pod] = append(pods[l.pod], [2]string{ns(l.ts), l.text})
	}
	var streams []any
	for i, values := range pods {
		streams = append(streams, map[string]any{"stream": map[string]string{"app": "ids", "pod": fmt.Sprint(i)}, "values": values})
	}
	for tenantID, needles := range map[string]int{"needles-on": 64 << 20, "needles-off": 0} {
		for _, tg := range targetsWith(t, func(c *config.Config) {
			c.Backend.SoleWriter, c.Frontend.NeedleIndexMaxBytes = "on", needles
		}) {
			t.Run(tg.name+"/"+tenantID, func(t *testing.T) {
				tg.pushJSON(t, tenantID, map[string]any{"streams": streams})
				for k := 0; k < len(all); k += 211 {
					id := all[k].text[strings.Index(all[k].text, `"trace_id":"`)+12 : len(all[k].text)-2]
					needle := id[len(id)-18:] // part of the id: a substring, not a word
					var want []string
					for _, l := range all {
						if strings.Contains(l.text, needle) {
							want = append(want, fmt.Sprint(l.pod, " ", ns(l.ts), " ", l.text))
						}
					}
					slices.Sort(want)
					for _, dir := range []string{"backward", "forward"} {
						before := backendRequests(t, tg, "query_range")
						got := decodeStreams(t, tg.get(t, "/loki/api/v1/query_range", tenantID,
							rangeParams(`{app="ids"} |= "`+needle+`"`, base, base.Add(48*time.Hour), 100, dir), nil))
						var lines []string
						for _, s := range got.Data.Result {
							for _, v := range s.Values {
								lines = append(lines, fmt.Sprint(s.Stream["pod"], " ", v[0], " ", v[1]))
							}
						}
						slices.Sort(lines)
						if strings.Join(lines, "\n") != strings.Join(want, "\n") {
							t.Errorf("%s %s:\n got  %.300s\n want %.300s", needle, dir, lines, want)
						}
						asked := backendRequests(t, tg, "query_range") - before
						if needles > 0 && len(want) == 1 && asked != 1 {
							t.Errorf("%s %s: %v VictoriaLogs requests, want 1 (the id's hour)", needle, dir, asked)
						}
						if needles == 0 && asked < 2 {
							t.Errorf("%s %s without the needle index: %v VictoriaLogs requests", needle, dir, asked)
						}
					}
				}
			})
		}
	}
}

// TestNeedleLabelFilterReadsItsHours: `| json | trace_id="<id>"` finds an
// id wherever Loki's pipeline reads it (the line, the line with its \u
// escapes read, structured metadata, a stream label) with the needle
// index on, asking VictoriaLogs once for an id in one hour and never for
// an id in no row, and answers as with it off.
func TestNeedleLabelFilterReadsItsHours(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 30))
	at := func(i int) time.Time { return base.Add(time.Duration(i) * 97 * time.Second) } // 1,800 lines over 48 h
	var plain []any
	var ids []string
	for i := range 1800 {
		id := fmt.Sprint(1e18 + r.Uint64N(9e18))
		ids = append(ids, id)
		plain = append(plain, []any{ns(at(i)), `{"msg":"m","trace_id":"` + id + `"}`})
	}
	const escapedID, metaID, labelID = "1234567890123456789", "9876543210987654321", "a1b2c3d4e5f6a7b8c9d0"
	escapedLine := `{"msg":"escaped","trace_id":"\u0031234567890\u0031\u00323456789"}`
	plain = append(plain, []any{ns(at(300).Add(1)), escapedLine},
		[]any{ns(at(900).Add(1)), `{"msg":"meta"}`, map[string]string{"trace_id": metaID}})
	push := map[string]any{"streams": []any{
		map[string]any{"stream": map[string]string{"app": "ids"}, "values": plain},
		map[string]any{"stream": map[string]string{"app": "ids", "trace_id": labelID}, "values": []any{[]any{ns(at(1500).Add(1)), `{"msg":"labelled"}`}}},
	}}
	want := map[string]string{
		ids[77]: `{"msg":"m","trace_id":"` + ids[77] + `"}`, ids[1234]: `{"msg":"m","trace_id":"` + ids[1234] + `"}`,
		escapedID: escapedLine, metaID: `{"msg":"meta"}`, labelID: `{"msg":"labelled"}`,
	}
	times := map[string]time.Time{ids[77]: at(77), ids[1234]: at(1234), escapedID: at(300).Add(1), metaID: at(900).Add(1), labelID: at(1500).Add(1)}
	for tenantID, needles := range map[string]int{"labels-needles-on": 64 << 20, "labels-needles-off": 0} {
		for _, tg := range targetsWith(t, func(c *config.Config) {
			c.Backend.SoleWriter, c.Frontend.NeedleIndexMaxBytes = "on", needles
		}) {
			t.Run(tg.name+"/"+tenantID, func(t *testing.T) {
				tg.pushJSON(t, tenantID, push)
				want["5555555555555555555"] = "" // in no row: with the index, no request
				for id, line := range want {
					before := backendRequests(t, tg, "query_range")
					got := summarize(decodeStreams(t, tg.get(t, "/loki/api/v1/query_range", tenantID,
						rangeParams(`{app="ids"} | json | trace_id="`+id+`"`, base, base.Add(48*time.Hour), 100, "backward"), nil)))
					if line != "" {
						line = "ids:" + line
					}
					if got != line {
						t.Errorf("%s: got %.300s, want %s", id, got, line)
					}
					asked := backendRequests(t, tg, "query_range") - before
					if n := min(len(line), 1); needles > 0 && asked != float64(n) {
						t.Errorf("%s: %v VictoriaLogs requests, want %d (the id's hours)", id, asked, n)
					}
					if needles == 0 && asked < 1 {
						t.Errorf("%s without the needle index: %v VictoriaLogs requests", id, asked)
					}
					checkNeedleCount(t, tg, tenantID, id, times[id])
				}
			})
		}
	}
}

// checkNeedleCount: the hourly count of the id's rows over the two days is
// 1 at the one step whose window (t-1h, t] holds at, and nothing else
// (nothing at all for an id in no row: at zero).
func checkNeedleCount(t *testing.T, tg target, tenantID, id string, at time.Time) {
	t.Helper()
	q := url.Values{"query": {`sum(count_over_time({app="ids"} | json | trace_id="` + id + `" [1h]))`},
		"start": {ns(base)}, "end": {ns(base.Add(48 * time.Hour))}, "step": {"3600"}}
	var m struct {
		Data struct{ Result []struct{ Values [][2]any } }
	}
	decodeJSON(t, tg.get(t, "/loki/api/v1/query_range", tenantID, q, nil), &m)
	var got []string
	for _, r := range m.Data.Result {
		for _, v := range r.Values {
			got = append(got, fmt.Sprintf("%.0f=%v", v[0], v[1]))
		}
	}
	want := ""
	if !at.IsZero() {
		k := (at.Sub(base) + time.Hour - 1) / time.Hour // the window (t-1h, t] holding at
		want = fmt.Sprintf("%d=1", base.Add(k*time.Hour).Unix())
	}
	if got := strings.Join(got, " "); got != want {
		t.Errorf("%s hourly counts: %s, want %s", id, got, want)
	}
}
