package bench

import (
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
	if n != 6 {
		t.Fatalf("%d needle queries, want 2 forms × 3 ids", n)
	}
}

// TestHighCardinalityWorkloads: the 25,600-stream dataset gets its own
// queries, each naming the bucketed_hostname label or asking metadata.
func TestHighCardinalityWorkloads(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	d := scaledata.New(scaledata.Config{Now: now, Days: 30, Lines: 1000, Hosts: true, Seed: 1})
	ws := ScaleWorkloads(d)
	if len(ws) != 8 {
		t.Fatalf("%d workloads", len(ws))
	}
	for _, w := range ws {
		if !strings.HasPrefix(w.Name, "hc ") || len(w.Queries(now)) != 1 {
			t.Errorf("workload %s", w.Name)
		}
	}
}
