package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
)

var testNow = time.Unix(1_800_000_000, 0)

// TestWorkloadQueries: every LogQL query parses as Loki parses it, and
// every request reads inside the seeded days (or the refresh's moving
// window), so no workload times empty ranges.
func TestWorkloadQueries(t *testing.T) {
	earliest := testNow.Add(-3*24*time.Hour - time.Hour)
	for _, w := range Workloads() {
		qs := w.Queries(testNow)
		if len(qs) < 5 {
			t.Errorf("%s: only %d queries", w.Name, len(qs))
		}
		for _, q := range qs {
			if lq := q.Params["query"]; lq != "" {
				if _, err := logql.ParseExpr(lq); err != nil {
					t.Errorf("%s %q: %v", w.Name, lq, err)
				}
			}
			for _, k := range []string{"start", "end", "time"} {
				v, ok := q.Params[k]
				if !ok {
					continue
				}
				ts := parseTime(t, v)
				if ts.Before(earliest) || ts.After(testNow) {
					t.Errorf("%s %s: %s=%s outside the data", w.Name, q.Name, k, ts)
				}
			}
		}
	}
}

func parseTime(t *testing.T, v string) time.Time {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(0, n)
	}
	ts, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		t.Fatalf("time %q: %v", v, err)
	}
	return ts
}

func TestGenerateIsDeterministicAndInRange(t *testing.T) {
	cfg := DatasetConfig{Now: testNow, Days: 1, Lines: 20_000, Services: 12}
	a, b := Generate(cfg), Generate(cfg)
	if Lines(a) < 19_000 || Lines(a) > 20_000 || Lines(a) != Lines(b) {
		t.Fatalf("lines %d and %d", Lines(a), Lines(b))
	}
	for i := range a {
		for j, e := range a[i].Entries {
			if e.TimestampNs != b[i].Entries[j].TimestampNs || e.Line != b[i].Entries[j].Line {
				t.Fatal("two generations differ")
			}
			if e.TimestampNs < testNow.Add(-24*time.Hour).UnixNano() || e.TimestampNs >= testNow.UnixNano() {
				t.Fatalf("entry at %s outside the day", time.Unix(0, e.TimestampNs))
			}
		}
	}
	hc := Generate(DatasetConfig{Now: testNow, Days: 1, Lines: 20_000, Services: 2, HighCardinality: true})
	if len(hc) <= len(Generate(DatasetConfig{Now: testNow, Days: 1, Lines: 20_000, Services: 2})) {
		t.Fatal("high cardinality made no more streams")
	}
}

// TestVerifyReportsDifferences runs the verification against two stub
// servers that disagree on one query.
func TestVerifyReportsDifferences(t *testing.T) {
	answer := func(differ string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			body := `{"status":"success","data":["a"]}`
			if differ != "" && strings.Contains(r.URL.RawQuery, differ) {
				body = `{"status":"success","data":["b"]}`
			}
			_, _ = w.Write([]byte(body))
		}))
	}
	ref, got := answer(""), answer("checkout")
	defer ref.Close()
	defer got.Close()
	w := Workload{Name: "w", Queries: func(time.Time) []Query {
		return []Query{
			{Name: "one", Path: "/loki/api/v1/labels", Params: map[string]string{"query": `{app="checkout"}`}},
			{Name: "two", Path: "/loki/api/v1/labels", Params: map[string]string{"query": `{app="cart"}`}},
		}
	}}
	v, err := Verify(context.Background(), w.Name, w.Queries(testNow), Target{Name: "vloki", URL: got.URL}, Target{Name: "loki", URL: ref.URL})
	if err != nil {
		t.Fatal(err)
	}
	if v.Identical != 1 || v.Total != 2 || len(v.Differing) != 1 || !strings.HasPrefix(v.Differing[0], "one:") {
		t.Fatalf("%+v", v)
	}
}

func TestReportRatios(t *testing.T) {
	r := &Report{Duration: time.Second, Steps: []Step{
		{Workload: "small", Target: "vloki", Clients: 10, Queries: 3, Throughput: 50},
		{Workload: "small", Target: "loki", Clients: 10, Queries: 3, Throughput: 25},
		{Workload: "small", Target: "victorialogs", Clients: 10, Queries: 2, Throughput: 100},
		{Workload: "compute", Target: "victorialogs", Clients: 10},
	}}
	md := r.Markdown()
	if !strings.Contains(md, "| 0.50 | 2.00 |") {
		t.Fatalf("ratios missing:\n%s", md)
	}
	if !strings.Contains(md, "| compute | 10 clients | victorialogs | no LogsQL twin |") {
		t.Fatalf("no twin row missing:\n%s", md)
	}
}

// TestPerQueryLatencies: clients' per-query sums merge, and the report
// shows each query's mean per target.
func TestPerQueryLatencies(t *testing.T) {
	a, b := newTally(), newTally()
	answer := func(t *tally, query string, took time.Duration) {
		t.add(testNow, took, 200, 1, nil)
		t.addQuery(query, took)
	}
	answer(a, "labels", 10*time.Millisecond)
	answer(b, "labels", 30*time.Millisecond)
	answer(b, "series", 4*time.Millisecond)
	all := newTally()
	all.merge(a)
	all.merge(b)
	if q := all.perQuery["labels"]; q.Answers != 2 || q.Mean() != 20*time.Millisecond {
		t.Fatalf("labels %+v", q)
	}
	r := &Report{Duration: time.Second, Steps: []Step{
		{Workload: "small", Target: "vloki", Clients: 10, Queries: 2, PerQuery: all.perQuery},
		{Workload: "small", Target: "base", Clients: 10, Queries: 2, PerQuery: map[string]QueryTime{"series": {Answers: 1, Total: time.Millisecond}}},
	}}
	md := r.Markdown()
	for _, row := range []string{"| query | vloki | base |", "| labels | 20.0 ms |  |", "| series | 4.0 ms | 1.0 ms |"} {
		if !strings.Contains(md, row) {
			t.Fatalf("no %q in:\n%s", row, md)
		}
	}
}

// TestSamplerReadsThisProcess: CPU time, peak RSS and peak anonymous
// memory of the test itself.
func TestSamplerReadsThisProcess(t *testing.T) {
	s := startSampler([]int{os.Getpid()}, "")
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	deadline := time.Now().Add(300 * time.Millisecond)
	for x := 0; time.Now().Before(deadline); x++ {
		_ = strconv.Itoa(x)
	}
	u := s.finish()
	// The buffer is anonymous memory: counted in both peaks.
	if u.PeakRSS < 64<<20 || u.PeakAnon < 64<<20 || u.PeakAnon > u.PeakRSS || u.CPUSeconds <= 0 {
		t.Fatalf("usage %+v", u)
	}
	_ = buf[len(buf)-1]
}
