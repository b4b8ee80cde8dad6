package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestEachTimesEveryQueryOnEveryTarget runs the per-query timing against
// two servers: the twin target is asked only the query that has a twin,
// failures are reported per target, and the table carries the ratios.
func TestEachTimesEveryQueryOnEveryTarget(t *testing.T) {
	var fastHits, slowHits atomic.Int32
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fastHits.Add(1)
		w.Write([]byte("{}"))
	}))
	defer fast.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slowHits.Add(1)
		if r.URL.Path == "/broken" {
			http.Error(w, "no", http.StatusBadGateway)
			return
		}
		time.Sleep(20 * time.Millisecond)
		w.Write([]byte("{}"))
	}))
	defer slow.Close()
	w := Workload{Name: "w", Queries: func(time.Time) []Query {
		return []Query{
			{Name: "with twin", Path: "/a", Twin: &Request{Path: "/twin"}},
			{Name: "no twin", Path: "/broken"},
		}
	}}
	targets := []Target{{Name: "fast", URL: fast.URL}, {Name: "slow", URL: slow.URL, Twins: true}}
	ts, err := Each(context.Background(), EachConfig{Now: time.Now(), Workloads: []Workload{w}, Targets: targets, Runs: 3, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if fastHits.Load() != 6 || slowHits.Load() != 3 {
		t.Fatalf("requests: fast %d (want 6), slow %d (want 3: only the twin)", fastHits.Load(), slowHits.Load())
	}
	if ts[0].Median["slow"] < 20*time.Millisecond || ts[0].Median["fast"] >= ts[0].Median["slow"] {
		t.Fatalf("medians %v", ts[0].Median)
	}
	table := EachMarkdown(ts, targets)
	for _, want := range []string{"| fast ÷ slow |", "| w | no twin |", "| — | — |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "error") {
		t.Errorf("the twin target was asked a query without twin:\n%s", table)
	}
}
