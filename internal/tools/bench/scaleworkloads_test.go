package bench

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
)

// TestQuickwitQueries: the seven queries are the benchmark's as published
// (queries/loki_100streams_100docs), over the whole span, volumes without
// a step and their twins at Loki's default step.
func TestQuickwitQueries(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	d := scaledata.New(scaledata.Config{Now: now, Days: 30, Lines: 1000, Seed: 1})
	want := map[string]string{
		"qw term":                        "{agent=\"benchmark\"} |~ `\\bqueen\\b`",
		"qw datacenter":                  `{cloud_region="us-east-2"}`,
		"qw datacenter_with_term":        "{cloud_region=\"us-east-2\"} |~ `\\bqueen\\b`",
		"qw logs_volume":                 `sum by (level)(count_over_time({agent="benchmark"} | drop __error__[1m]))`,
		"qw term_logs_volume":            "sum by (level)(count_over_time({agent=\"benchmark\"} |~ `\\bqueen\\b` | drop __error__[1m]))",
		"qw datacenter_logs_volume":      `sum by (level)(count_over_time({cloud_region="us-east-2"} | drop __error__[1m]))`,
		"qw term_datacenter_logs_volume": "sum by (level)(count_over_time({cloud_region=\"us-east-2\"} |~ `\\bqueen\\b` | drop __error__[1m]))",
	}
	seen := 0
	for _, w := range ScaleWorkloads(d) {
		q := w.Queries(now)[0]
		if !strings.HasPrefix(w.Name, "qw ") {
			continue
		}
		seen++
		if q.Params["query"] != want[w.Name] {
			t.Errorf("%s: %s, want %s", w.Name, q.Params["query"], want[w.Name])
		}
		if q.Params["start"] != ns(d.Start()) || q.Params["end"] != ns(d.End()) || q.Twin == nil {
			t.Errorf("%s: not over the whole span, or no twin: %v", w.Name, q.Params)
		}
		if strings.Contains(w.Name, "volume") {
			if _, ok := q.Params["step"]; ok || q.Twin.Params["step"] != "10368s" {
				t.Errorf("%s: step %q, twin's %q, want none and 30 d / 250", w.Name, q.Params["step"], q.Twin.Params["step"])
			}
		} else if q.Params["limit"] != "100" {
			t.Errorf("%s: limit %s", w.Name, q.Params["limit"])
		}
	}
	if seen != 7 {
		t.Fatalf("%d Quickwit queries", seen)
	}
}

// TestNeedles: the needle searches ask for trace ids of lines there are.
func TestNeedles(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	d := scaledata.New(scaledata.Config{Now: now, Days: 30, Lines: 1000, Seed: 1})
	n := 0
	for _, w := range ScaleWorkloads(d) {
		if !strings.HasPrefix(w.Name, "needle ") {
			continue
		}
		for _, q := range w.Queries(now) {
			if !strings.Contains(q.Params["query"], d.TraceIDString(200)) && !strings.Contains(q.Params["query"], d.TraceIDString(500)) &&
				!strings.Contains(q.Params["query"], d.TraceIDString(800)) {
				t.Errorf("%s asks for no line's trace id: %s", w.Name, q.Params["query"])
			}
			n++
		}
	}
	if n != 9 {
		t.Fatalf("%d needle queries, want 3 forms × 3 ids", n)
	}
}

// TestHighCardinalityWorkloads: the 25,600-stream dataset gets its own
// queries, each naming the bucketed_hostname label or asking metadata.
func TestHighCardinalityWorkloads(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	d := scaledata.New(scaledata.Config{Now: now, Days: 30, Lines: 1000, Hosts: true, Seed: 1})
	ws := ScaleWorkloads(d)
	if len(ws) != 10 {
		t.Fatalf("%d workloads", len(ws))
	}
	for _, w := range ws {
		want := 1
		if w.Name == "hc drilldown" {
			want = 6 // the landing volume and the host's page
		}
		if !strings.HasPrefix(w.Name, "hc ") || len(w.Queries(now)) != want {
			t.Errorf("workload %s", w.Name)
		}
	}
}

// TestPanels: Explore's logs and volume panels over 1 h, 24 h and 7 d are
// sent as Grafana sends them: the logs panel's newest day with its
// 1,000-line limit, the volume at the panel's step in day chunks that
// cover the range newest first, each request with a twin over its range.
func TestPanels(t *testing.T) {
	now := time.UnixMilli(1_800_000_037_123) // on no step: Grafana then asks up to now
	d := scaledata.New(scaledata.Config{Now: now, Days: 30, Lines: 1000, Seed: 1})
	byName := map[string]Workload{}
	for _, w := range ScaleWorkloads(d) {
		byName[w.Name] = w
	}
	day := 24 * time.Hour
	for _, c := range []struct {
		name   string
		d      time.Duration
		step   time.Duration // Grafana's interval for the range
		chunks int
	}{{"1h", time.Hour, 5 * time.Second, 1}, {"24h", day, time.Minute, 2}, {"7d", 7 * day, 10 * time.Minute, 8}} {
		lw, vw := byName["panel logs "+c.name], byName["panel volume "+c.name]
		if lw.Queries == nil || vw.Queries == nil {
			t.Fatalf("no panels over %s", c.name)
		}
		lq := lw.Queries(now)
		if len(lq) != 1 || lq[0].Params["query"] != `{cloud_region="us-east-2"}` || lq[0].Params["limit"] != "1000" ||
			lq[0].Params["direction"] != "backward" || lq[0].Params["end"] != ns(now) || lq[0].Params["start"] != ns(now.Add(-min(c.d, day))) ||
			lq[0].Twin == nil || lq[0].Twin.Params["start"] != lq[0].Params["start"] {
			t.Errorf("logs panel %s: %+v", c.name, lq)
		}
		vq := vw.Queries(now)
		if len(vq) != c.chunks {
			t.Fatalf("volume panel %s: %d requests, want %d", c.name, len(vq), c.chunks)
		}
		want := "sum by (level, detected_level) (count_over_time({cloud_region=\"us-east-2\"} | drop __error__[" + grafanaDuration(c.step) + "]))"
		end := now
		for i, q := range vq {
			s, _ := strconv.ParseInt(q.Params["start"], 10, 64)
			e, _ := strconv.ParseInt(q.Params["end"], 10, 64)
			if q.Params["query"] != want || q.Params["step"] != strconv.FormatInt(c.step.Milliseconds(), 10)+"ms" || e != end.UnixNano() ||
				e-s > int64(day) || s%int64(c.step) != 0 || q.Twin == nil || q.Twin.Params["start"] != q.Params["start"] || q.Twin.Params["end"] != q.Params["end"] || q.Twin.Params["step"] != q.Params["step"] {
				t.Errorf("volume panel %s request %d: %v", c.name, i, q.Params)
			}
			end = time.Unix(0, s).Add(-c.step)
		}
		if first := now.Add(-c.d).Truncate(c.step); end.Add(c.step) != first {
			t.Errorf("volume panel %s starts at %v, want %v", c.name, end.Add(c.step), first)
		}
	}
}
