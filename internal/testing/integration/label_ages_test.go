package integration

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// labelAgesRecord is a line of testdata/label_ages_loki.jsonl.gz, derived
// by scripts/label-ages/testdata.py from the experiment of
// docs/loki-label-index.md (scripts/label-ages/evidence/2026-11-26-*): a
// push (wall time Unix ns, each job's entry times), or a recorded Loki
// answer over [end − range, end].
type labelAgesRecord struct {
	Push    int64              `json:"push"`
	Streams map[string][]int64 `json:"streams"`

	Target, Range            string
	End                      int64
	Labels, Values, Detected []string
}

// labelAgesGap is a registered window of wall times in which a target's
// answers may differ from vloki's (testdata/label_ages_gaps.txt, one
// "<target>@<HH:MM:SS>-<HH:MM:SS> <reason>" a line, UTC on the day
// recorded): Loki's timing there is not determined by the pushes.
type labelAgesGap struct {
	target   string
	from, to time.Duration // since midnight UTC
	reason   string
	differs  bool
}

// TestLabelAgesMatchLoki replays the label-ages experiment into a real
// vloki (embedded engine; chunk_idle_period 6m and flush_check_period 10s
// as the recorded Lokis), its clock set to each recorded wall time, and
// compares label names, values and detected labels with the answers of
// loki-parity (look-back -1) and loki-defaults (Loki's derived look-back).
// Every cell outside a registered gap window must match, and every
// registered window must hold a differing cell.
func TestLabelAgesMatchLoki(t *testing.T) {
	recs := readLabelAges(t)
	gaps := readLabelAgesGaps(t)
	emb, err := vltest.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var now time.Time
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	setNow := func(ns int64) { mu.Lock(); now = time.Unix(0, ns); mu.Unlock() }
	run := strconv.FormatInt(time.Now().UnixNano(), 36) // a fresh tenant per run
	targets := map[string]target{}
	for name, lookback := range map[string]config.LookBackPeriod{"loki-parity": -1, "loki-defaults": 0} {
		cfg := config.Default()
		cfg.Auth.Enabled, cfg.Backend.SoleWriter = true, "on"
		cfg.Storage.Path = t.TempDir()
		cfg.Ingester = config.Ingester{ChunkIdlePeriod: 6 * time.Minute, FlushCheckPeriod: 10 * time.Second, QueryStoreMaxLookBackPeriod: lookback}
		app, err := server.AssembleWith(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), emb, name, func() {}, server.Options{Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		srv := newServer(app.Handler())
		t.Cleanup(func() { srv.Close(); app.Close() })
		targets[name] = target{name: name, url: srv.URL, vl: emb}
	}
	tenantOf := func(target string) string { return target + "-" + run }
	score := map[string][2]int{}
	for _, r := range recs {
		if r.Streams != nil {
			setNow(r.Push)
			for name, tg := range targets {
				tg.pushJSON(t, tenantOf(name), labelAgesPush(r.Streams))
			}
			continue
		}
		setNow(r.End)
		got := askLabelAges(t, targets[r.Target], tenantOf(r.Target), r)
		for i, want := range [][]string{r.Labels, r.Values, r.Detected} {
			kind := []string{"labels", "values", "detected"}[i]
			s := score[r.Target+" "+kind]
			s[1]++
			if slices.Equal(got[i], want) {
				s[0]++
			} else if g := gapAt(gaps, r.Target, r.End); g != nil {
				g.differs = true
			} else {
				at := time.Unix(0, r.End).UTC().Format("15:04:05")
				t.Errorf("%s at %s over %s: %s %v, Loki %v", r.Target, at, r.Range, kind, got[i], want)
			}
			score[r.Target+" "+kind] = s
		}
	}
	for _, k := range slices.Sorted(maps.Keys(score)) {
		t.Logf("%s: %d of %d cells as Loki", k, score[k][0], score[k][1])
	}
	for _, g := range gaps {
		if !g.differs {
			t.Errorf("gap %s %v-%v: every answer matches Loki: remove it from testdata/label_ages_gaps.txt", g.target, g.from, g.to)
		}
	}
}

// labelAgesPush is run.py's push body: each job a stream {job, k_<job>="v"}.
func labelAgesPush(streams map[string][]int64) map[string]any {
	var out []any
	for job, ts := range streams {
		var values [][]string
		for i, x := range ts {
			values = append(values, []string{strconv.FormatInt(x, 10), fmt.Sprintf("%s line %d", job, i)})
		}
		out = append(out, map[string]any{"stream": map[string]string{"job": job, "k_" + job: "v"}, "values": values})
	}
	return map[string]any{"streams": out}
}

var labelAgesRanges = map[string]time.Duration{"5m": 5 * time.Minute, "15m": 15 * time.Minute, "40m": 40 * time.Minute,
	"1h": time.Hour, "3h": 3 * time.Hour, "24h": 24 * time.Hour}

// askLabelAges asks what run.py asked: label names, values of job and
// detected labels of {job=~".+"}, sorted.
func askLabelAges(t *testing.T, tg target, tenantID string, r labelAgesRecord) [3][]string {
	t.Helper()
	params := url.Values{"start": {strconv.FormatInt(r.End-int64(labelAgesRanges[r.Range]), 10)}, "end": {strconv.FormatInt(r.End, 10)}}
	var out [3][]string
	for i, path := range []string{"/loki/api/v1/labels", "/loki/api/v1/label/job/values"} {
		resp := tg.get(t, path, tenantID, params, nil)
		var body struct{ Data []string }
		if resp.status != 200 || json.Unmarshal(resp.body, &body) != nil {
			t.Fatalf("%s: %d %s", path, resp.status, resp.body)
		}
		out[i] = append([]string{}, body.Data...)
		slices.Sort(out[i])
	}
	params.Set("query", `{job=~".+"}`)
	resp := tg.get(t, "/loki/api/v1/detected_labels", tenantID, params, nil)
	var body struct{ DetectedLabels []struct{ Label string } }
	if resp.status != 200 || json.Unmarshal(resp.body, &body) != nil {
		t.Fatalf("detected_labels: %d %s", resp.status, resp.body)
	}
	out[2] = []string{}
	for _, d := range body.DetectedLabels {
		out[2] = append(out[2], d.Label)
	}
	slices.Sort(out[2])
	return out
}

func readLabelAges(t *testing.T) []labelAgesRecord {
	t.Helper()
	f, err := os.Open("testdata/label_ages_loki.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []labelAgesRecord
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r labelAgesRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Labels != nil {
			r.Labels, r.Values, r.Detected = orEmpty(r.Labels), orEmpty(r.Values), orEmpty(r.Detected)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func readLabelAgesGaps(t *testing.T) []*labelAgesGap {
	t.Helper()
	raw, err := os.ReadFile("testdata/label_ages_gaps.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []*labelAgesGap
	for n, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, _ := strings.Cut(line, " ")
		target, window, ok := strings.Cut(id, "@")
		from, to, ok2 := strings.Cut(window, "-")
		g := &labelAgesGap{target: target, reason: strings.TrimSpace(reason)}
		var err1, err2 error
		g.from, err1 = sinceMidnight(from)
		g.to, err2 = sinceMidnight(to)
		if !ok || !ok2 || err1 != nil || err2 != nil || g.reason == "" {
			t.Fatalf("label_ages_gaps.txt:%d: want \"<target>@<HH:MM:SS>-<HH:MM:SS> <reason>\"", n+1)
		}
		out = append(out, g)
	}
	return out
}

func sinceMidnight(hms string) (time.Duration, error) {
	at, err := time.Parse("15:04:05", hms)
	return time.Duration(at.Hour())*time.Hour + time.Duration(at.Minute())*time.Minute + time.Duration(at.Second())*time.Second, err
}

// gapAt is the registered gap window of target holding wall time ns.
func gapAt(gaps []*labelAgesGap, target string, ns int64) *labelAgesGap {
	at := time.Unix(0, ns).UTC()
	since := at.Sub(at.Truncate(24 * time.Hour))
	for _, g := range gaps {
		if g.target == target && since >= g.from && since < g.to {
			return g
		}
	}
	return nil
}

// TestLabelRuleAnswersNotStale: label answers that follow the push times
// change with time alone, so the results cache never serves them: a
// range of yesterday lists an in-memory stream, and no longer once it
// flushed into a unit outside the range.
func TestLabelRuleAnswersNotStale(t *testing.T) {
	emb, err := vltest.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Now().Add(-24 * time.Hour)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return wall }
	cfg := config.Default()
	cfg.Auth.Enabled, cfg.Backend.SoleWriter = true, "on"
	cfg.Storage.Path = t.TempDir()
	cfg.Ingester = config.Ingester{ChunkIdlePeriod: 6 * time.Minute, FlushCheckPeriod: 10 * time.Second, QueryStoreMaxLookBackPeriod: -1}
	app, err := server.AssembleWith(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), emb, "stale", func() {}, server.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(app.Handler())
	t.Cleanup(func() { srv.Close(); app.Close() })
	tg := target{name: "stale", url: srv.URL, vl: emb}
	tenantID := "stale-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	tg.pushJSON(t, tenantID, jsonPush(map[string]string{"app": "a"}, entry{ns(wall.Add(-2 * time.Hour)), "line"}))
	params := url.Values{"start": {ns(wall.Add(-time.Hour))}, "end": {ns(wall.Add(-59 * time.Minute))}}
	ask := func() string {
		r := tg.get(t, "/loki/api/v1/label/app/values", tenantID, params, nil)
		var body struct{ Data []string }
		if r.status != 200 || json.Unmarshal(r.body, &body) != nil {
			t.Fatalf("%d %s", r.status, r.body)
		}
		return strings.Join(body.Data, ",")
	}
	for i := range 2 {
		if got := ask(); got != "a" {
			t.Fatalf("in memory, asked %d times: %q, want a", i+1, got)
		}
	}
	mu.Lock()
	wall = wall.Add(40 * time.Minute) // flushed, its head and files outside the range
	mu.Unlock()
	if got := ask(); got != "" {
		t.Fatalf("after the flush: %q, want none (a stale cached answer?)", got)
	}
	if hits := metricValue(t, tg, "vloki_results_cache_hits_total"); hits != 0 {
		t.Errorf("%v label answers came from the results cache", hits)
	}
}
