package bench

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestClosedLoopReadsEveryKindOfAnswer: answers with a length, chunked
// ones, bodiless ones, errors and ones that close the connection are all
// read whole, counted, and the connection reused or redialled as needed.
func TestClosedLoopReadsEveryKindOfAnswer(t *testing.T) {
	body := strings.Repeat("x", 5000)
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		switch r.URL.Path {
		case "/length":
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			_, _ = w.Write([]byte(body))
		case "/chunked":
			_, _ = w.Write([]byte(body[:100]))
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte(body[100:]))
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/error":
			http.Error(w, "bad", http.StatusBadRequest)
		case "/close":
			w.Header().Set("Connection", "close")
			_, _ = w.Write([]byte(body))
		}
	}))
	defer srv.Close()
	paths := []string{"/length", "/chunked", "/empty", "/error", "/close"}
	var reqs []*prepared
	for _, p := range paths {
		reqs = append(reqs, prepare(srv.URL, p, map[string]string{"q": "1"}, http.Header{"X-Scope-OrgID": {"t"}}))
	}
	src := func(i uint64) *prepared { return reqs[i%uint64(len(reqs))] }
	var done atomic.Uint64
	m := closedLoop(src, Load{Clients: 3, Duration: 300 * time.Millisecond, Timeout: 5 * time.Second}, &done)
	if m.requests < 50 || m.requests != done.Load() || int64(m.requests) != served.Load() {
		t.Fatalf("%d requests counted, %d reported, %d served", m.requests, done.Load(), served.Load())
	}
	if m.codes["0"] != 0 {
		t.Fatalf("transport errors: %v %v", m.codes, m.errors)
	}
	if m.codes["400"] == 0 || m.codes["204"] == 0 || m.ok != m.requests-uint64(m.codes["400"]) {
		t.Fatalf("codes %v, ok %d of %d", m.codes, m.ok, m.requests)
	}
	if len(m.errors) != 1 || m.errors[0] != "400 Bad Request" {
		t.Fatalf("errors %q", m.errors)
	}
	// Three of five answers carry the 5,000-byte body, one "bad\n".
	if mean := m.meanBytes(); mean < 2900 || mean > 3100 {
		t.Fatalf("mean bytes %.0f", mean)
	}
	if m.throughput() <= 0 || m.quantile(0.5) <= 0 || m.quantile(0.99) > m.max {
		t.Fatalf("throughput %.0f, p50 %s, p99 %s, max %s", m.throughput(), m.quantile(0.5), m.quantile(0.99), m.max)
	}
}

// TestTallyQuantiles: percentiles come within a bucket (1/64) of the
// exact ones, and merging tallies equals counting once.
func TestTallyQuantiles(t *testing.T) {
	a, b, all := newTally(), newTally(), newTally()
	at := time.Unix(1000, 0)
	for i := 1; i <= 10_000; i++ {
		d := time.Duration(i) * time.Microsecond
		tt := a
		if i%2 == 0 {
			tt = b
		}
		tt.add(at, d, 200, 10, nil)
		all.add(at, d, 200, 10, nil)
	}
	a.merge(b)
	for _, q := range []float64{0.5, 0.9, 0.99} {
		want := time.Duration(q*10_000) * time.Microsecond
		got := a.quantile(q)
		if got != all.quantile(q) || got < want || float64(got-want) > float64(want)/64 {
			t.Errorf("p%.0f: %s (unmerged %s), exact %s", q*100, got, all.quantile(q), want)
		}
	}
	if a.max != 10*time.Millisecond || a.requests != 10_000 {
		t.Fatalf("max %s, requests %d", a.max, a.requests)
	}
	for _, d := range []time.Duration{0, 1, 63, 64, 127, 128, 1000, time.Second, time.Hour} {
		if up := binUpper(latencyBin(d)); up < d || (d >= 64 && float64(up-d) > float64(d)/64) {
			t.Errorf("%d ns in a bucket ending at %d", d, up)
		}
	}
}

// TestClosedLoopTimesOut: a server that never answers costs a client one
// timeout per request, reported as an error, and the step ends on time.
func TestClosedLoopTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	req := prepare(srv.URL, "/", nil, nil)
	var done atomic.Uint64
	began := time.Now()
	m := closedLoop(func(uint64) *prepared { return req }, Load{Clients: 2, Duration: 100 * time.Millisecond, Timeout: 300 * time.Millisecond}, &done)
	if took := time.Since(began); took > 2*time.Second {
		t.Fatalf("the step took %s", took)
	}
	if m.requests != 2 || m.ok != 0 || m.codes["0"] != 2 {
		t.Fatalf("%d requests, %d ok, codes %v, errors %q", m.requests, m.ok, m.codes, m.errors)
	}
}
