package bench

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
)

// wall is a wall clock with sub-millisecond digits, as time.Now has.
var wall = time.Unix(1_800_000_500, 123_456_789)

func nsParam(t *testing.T, q Query, k string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(q.Params[k], 10, 64)
	if err != nil {
		t.Fatalf("%s %s=%q: %v", q.Name, k, q.Params[k], err)
	}
	return n
}

func workload(name string) Workload {
	for _, w := range Workloads() {
		if w.Name == name {
			return w
		}
	}
	panic(name)
}

func TestWindowFixedKeepsTheRunsNow(t *testing.T) {
	win := Window{Mode: WindowFixed}
	c := clock{runNow: testNow, began: wall, wall: wall.Add(12 * time.Second), i: 7}
	if got := win.nowOf(workload("small"), c); !got.Equal(testNow) {
		t.Fatalf("small at %s", got)
	}
	if got := win.nowOf(workload("refresh"), c); !got.Equal(testNow.Add(10 * time.Second)) {
		t.Fatalf("refresh at %s, want the run's now + 10s (moves every 5s)", got)
	}
}

func TestWindowNowEndsAtTheWallClockInMilliseconds(t *testing.T) {
	win := Window{Mode: WindowNow}
	for _, w := range Workloads() {
		for _, q := range win.firstRound(w, testNow, wall) {
			if q.Params["end"] == "" || strings.Contains(q.Params["end"], "T") {
				continue
			}
			if end := nsParam(t, q, "end"); end != wall.UnixMilli()*1e6 {
				t.Errorf("%s %s: end %d, want the wall clock's millisecond %d", w.Name, q.Name, end, wall.UnixMilli()*1e6)
			}
			if start := nsParam(t, q, "start"); start%1e6 != 0 {
				t.Errorf("%s %s: start %d not whole milliseconds", w.Name, q.Name, start)
			}
		}
	}
}

func TestWindowShiftedIsSeededNanosecondAndWithinTwoHours(t *testing.T) {
	a, b, other := Window{Mode: WindowShifted, Seed: 1}, Window{Mode: WindowShifted, Seed: 1}, Window{Mode: WindowShifted, Seed: 2}
	w := workload("heavy")
	lo, hi, sub, same := MaxShift, time.Duration(0), 0, 0
	for i := range uint64(2000) {
		c := clock{runNow: testNow, began: wall, wall: wall.Add(time.Duration(i) * time.Millisecond), i: i}
		at := a.nowOf(w, c)
		if !at.Equal(b.nowOf(w, clock{runNow: testNow, i: i})) {
			t.Fatalf("request %d: two runs with one seed differ", i)
		}
		if at.Equal(other.nowOf(w, c)) {
			same++
		}
		d := testNow.Sub(at)
		if d < 0 || d >= MaxShift {
			t.Fatalf("request %d shifted by %s", i, d)
		}
		lo, hi = min(lo, d), max(hi, d)
		if d%time.Millisecond != 0 {
			sub++
		}
		q := a.request(w, c)
		if end := nsParam(t, q, "end"); end != at.UnixNano() {
			t.Fatalf("request %d (%s) ends at %d, want %d", i, q.Name, end, at.UnixNano())
		}
	}
	if lo > 10*time.Minute || hi < 110*time.Minute || sub < 1900 || same > 5 {
		t.Fatalf("shifts span %s–%s, %d of 2000 below the millisecond, %d equal under another seed", lo, hi, sub, same)
	}
}

// TestShiftedRequestsAreTheSameForEveryTarget: two targets sending their
// i-th request get the same bytes, whenever they send it.
func TestShiftedRequestsAreTheSameForEveryTarget(t *testing.T) {
	win := Window{Mode: WindowShifted, Seed: 42}
	tg := Target{Name: "a", URL: "http://127.0.0.1:1"}
	srcA, n := requests(tg, workload("small"), win, testNow)
	time.Sleep(2 * time.Millisecond)
	srcB, _ := requests(tg, workload("small"), win, testNow)
	seen := map[string]bool{}
	for i := range uint64(3 * n) {
		a, b := srcA(i), srcB(i)
		if !bytes.Equal(a.raw, b.raw) {
			t.Fatalf("request %d differs:\n%s\n%s", i, a.raw, b.raw)
		}
		seen[string(a.raw)] = true
	}
	if len(seen) != 3*n {
		t.Fatalf("%d distinct requests of %d", len(seen), 3*n)
	}
}

func TestGrafanaIntervalAndStep(t *testing.T) {
	for _, c := range []struct {
		rng  time.Duration
		step int64
	}{{time.Hour, 5000}, {6 * time.Hour, 20000}, {24 * time.Hour, 60000}, {48 * time.Hour, 120000}, {7 * 24 * time.Hour, 600000}, {5 * time.Second, 1}} {
		if got := grafanaStep(grafanaInterval(c.rng.Milliseconds()), c.rng.Milliseconds()); got != c.step {
			t.Errorf("%s: step %dms, want %dms", c.rng, got, c.step)
		}
	}
	// range/11000 wins when the interval is finer, rounded up to the ms.
	if got := grafanaStep(1, 110_001); got != 11 {
		t.Errorf("safe step %d, want 11", got)
	}
	if got := grafanaDuration(120 * time.Second); got != "2m" {
		t.Errorf("duration %q", got)
	}
}

// grafanaRound is w's first round in grafana mode at the test's wall clock.
func grafanaRound(name string) []Query {
	return Window{Mode: WindowGrafana}.firstRound(workload(name), testNow, wall)
}

func byName(qs []Query, prefix string) []Query {
	var out []Query
	for _, q := range qs {
		if strings.HasPrefix(q.Name, prefix) {
			out = append(out, q)
		}
	}
	return out
}

func TestGrafanaMetricQueryAlignsItsStartToTheStep(t *testing.T) {
	qs := byName(grafanaRound("refresh"), "rate by app")
	if len(qs) != 1 {
		t.Fatalf("%d requests", len(qs))
	}
	q, endMs := qs[0], wall.UnixMilli()
	start, end := nsParam(t, q, "start"), nsParam(t, q, "end")
	if end != endMs*1e6 || q.Params["step"] != "5000ms" || q.Params["direction"] != "backward" {
		t.Fatalf("params %v", q.Params)
	}
	if want := (endMs - time.Hour.Milliseconds()) / 5000 * 5000 * 1e6; start != want {
		t.Fatalf("start %d, want the hour before aligned down to 5s: %d", start, want)
	}
	if _, ok := q.Params["limit"]; ok {
		t.Fatal("a split metric query carries no limit")
	}
}

func TestGrafanaSplitsLongRangesByDayNewestFirst(t *testing.T) {
	qs := byName(grafanaRound("long_range"), "count by level 48h")
	if len(qs) != 3 || !strings.HasSuffix(qs[0].Name, "[1/3]") {
		t.Fatalf("%d requests, first %q", len(qs), qs[0].Name)
	}
	step := int64(120_000) * 1e6
	if qs[0].Params["step"] != "120000ms" || nsParam(t, qs[0], "end") != wall.UnixMilli()*1e6 {
		t.Fatalf("newest chunk %v", qs[0].Params)
	}
	for i := 1; i < len(qs); i++ {
		older, newer := qs[i], qs[i-1]
		if nsParam(t, newer, "start") != nsParam(t, older, "end")+step {
			t.Fatalf("chunks %d and %d not one step apart: %v %v", i, i-1, older.Params, newer.Params)
		}
		if nsParam(t, older, "start")%step != 0 {
			t.Fatalf("chunk %d starts off the step grid", i)
		}
	}
	if qs[0].Twin == nil || qs[1].Twin != nil {
		t.Fatal("only the newest chunk keeps the twin")
	}
}

func TestGrafanaLogQuerySplitsBackwardAndAsksItsVolume(t *testing.T) {
	qs := byName(grafanaRound("long_range"), "select 48h")
	if len(qs) != 2+3 {
		t.Fatalf("%d requests: %v", len(qs), qs)
	}
	endNs, day := wall.UnixMilli()*1e6, (24 * time.Hour).Nanoseconds()
	if nsParam(t, qs[0], "end") != endNs || nsParam(t, qs[0], "start") != endNs-day ||
		nsParam(t, qs[1], "end") != endNs-day || nsParam(t, qs[1], "start") != endNs-2*day {
		t.Fatalf("log chunks %v %v", qs[0].Params, qs[1].Params)
	}
	if qs[0].Params["limit"] != "2000" || qs[0].Headers["X-Query-Tags"] != "" {
		t.Fatalf("log chunk %v %v", qs[0].Params, qs[0].Headers)
	}
	vol := qs[2]
	want := `sum by (level, detected_level) (count_over_time({namespace="platform"} | drop __error__[2m]))`
	if vol.Params["query"] != want || vol.Headers["X-Query-Tags"] != "Source=logvolhist" || vol.Params["limit"] != "" {
		t.Fatalf("volume %v %v", vol.Params, vol.Headers)
	}
}

func TestGrafanaInstantAndMetadata(t *testing.T) {
	qs := grafanaRound("small")
	inst := byName(qs, "instant count")[0]
	if inst.Params["time"] != strconv.FormatInt(wall.UnixMilli()*1e6, 10) || inst.Params["limit"] != "1000" || inst.Params["direction"] != "backward" {
		t.Fatalf("instant %v", inst.Params)
	}
	labels := byName(qs, "labels 1h")[0]
	if nsParam(t, labels, "end") != wall.UnixMilli()*1e6 || len(labels.Params) != 2 {
		t.Fatalf("labels %v", labels.Params)
	}
}

// TestGrafanaQueriesParse: every LogQL Grafana mode writes parses.
func TestGrafanaQueriesParse(t *testing.T) {
	for _, w := range Workloads() {
		for _, q := range grafanaRound(w.Name) {
			if lq := q.Params["query"]; lq != "" && strings.HasPrefix(q.Path, "/loki/api/v1/query") {
				if _, err := logql.ParseExpr(lq); err != nil {
					t.Errorf("%s %q: %v", w.Name, lq, err)
				}
			}
		}
	}
}

// TestFirstRoundIsOneRequestPerQuery: what verification asks is what a
// step sends first, the same for the same wall clock.
func TestFirstRoundIsOneRequestPerQuery(t *testing.T) {
	for _, mode := range []WindowMode{WindowFixed, WindowNow, WindowShifted, WindowGrafana} {
		win := Window{Mode: mode, Seed: 3}
		for _, w := range Workloads() {
			a, b := win.firstRound(w, testNow, wall), win.firstRound(w, testNow, wall)
			if len(a) < len(w.Queries(testNow)) {
				t.Errorf("%s %s: %d requests for %d queries", mode, w.Name, len(a), len(w.Queries(testNow)))
			}
			for i := range a {
				if a[i].Name != b[i].Name || encode(a[i].Params) != encode(b[i].Params) {
					t.Errorf("%s %s: request %d differs between two rounds", mode, w.Name, i)
				}
			}
		}
	}
}
