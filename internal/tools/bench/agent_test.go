package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestAgentWritesIntoVictoriaLogs: the agent's lines land in a real
// victoria-logs as vloki's streams (stream fields app…level, the line
// verbatim in _msg) at the wall clock, each one it counted.
func TestAgentWritesIntoVictoriaLogs(t *testing.T) {
	p, err := vltest.StartProcess(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ctx, stop := context.WithTimeout(context.Background(), 1200*time.Millisecond)
	defer stop()
	began := time.Now()
	n, err := Agent(ctx, AgentConfig{URL: p.URL, Rate: 200})
	if err != nil || n < 150 {
		t.Fatalf("wrote %d lines: %v", n, err)
	}
	if resp, err := http.Get(p.URL + "/internal/force_flush"); err == nil {
		resp.Body.Close()
	}
	q := url.Values{"query": {`{env="prod"} | stats count() n, count_uniq(_stream) s, min(_time) first`}}
	resp, err := http.Get(p.URL + "/select/logsql/query?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var row struct{ N, S, First string }
	if err := json.NewDecoder(resp.Body).Decode(&row); err != nil {
		t.Fatal(err)
	}
	first, _ := time.Parse(time.RFC3339Nano, row.First)
	if row.N != strconv.FormatInt(n, 10) || row.S == "0" || first.Before(began.Add(-time.Second)) {
		t.Fatalf("VictoriaLogs counts %+v, the agent wrote %d from %s", row, n, began)
	}
	resp2, err := http.Get(p.URL + "/select/logsql/query?" + url.Values{"query": {`{app="checkout"} | limit 1`}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	var line map[string]string
	if err := json.NewDecoder(resp2.Body).Decode(&line); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(line["_msg"], `{"level":`) || !strings.Contains(line["_stream"], `app="checkout"`) {
		t.Fatalf("row %v", line)
	}
}

// TestAgentHistory: with History the agent first writes Rate lines a
// second of the past History, spread over it, before its live lines.
func TestAgentHistory(t *testing.T) {
	p, err := vltest.StartProcess(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ctx, stop := context.WithTimeout(context.Background(), 3*time.Second)
	defer stop()
	began := time.Now()
	n, err := Agent(ctx, AgentConfig{URL: p.URL, Rate: 50, History: 10 * time.Minute})
	if err != nil || n < 30_000 {
		t.Fatalf("wrote %d lines: %v", n, err)
	}
	if resp, err := http.Get(p.URL + "/internal/force_flush"); err == nil {
		resp.Body.Close()
	}
	// Each of the history's ten minutes holds its 3,000 lines.
	for m := 1; m <= 9; m++ {
		lo := began.Add(-time.Duration(m+1) * time.Minute).UnixNano()
		q := url.Values{"query": {`{env="prod"} | stats count() n`}, "start": {strconv.FormatInt(lo, 10)},
			"end": {strconv.FormatInt(lo+int64(time.Minute)-1, 10)}}
		resp, err := http.Get(p.URL + "/select/logsql/query?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		var row struct{ N string }
		err = json.NewDecoder(resp.Body).Decode(&row)
		resp.Body.Close()
		if got, _ := strconv.Atoi(row.N); err != nil || got < 2990 || got > 3010 {
			t.Fatalf("minute %d before the start holds %q lines: %v", m+1, row.N, err)
		}
	}
}

// TestAgentPushesThroughLoki: with Loki URLs the agent pushes Loki JSON
// through them in turn, every line it counted in a stream of its labels.
func TestAgentPushesThroughLoki(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int{}
	recv := func(name string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body struct {
				Streams []struct {
					Stream map[string]string `json:"stream"`
					Values [][2]string       `json:"values"`
				} `json:"streams"`
			}
			if r.URL.Path != "/loki/api/v1/push" || r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&body) != nil {
				http.Error(w, "bad push", http.StatusBadRequest)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, s := range body.Streams {
				if s.Stream["env"] != "prod" || s.Stream["app"] == "" {
					http.Error(w, "bad labels", http.StatusBadRequest)
					return
				}
				got[name] += len(s.Values)
			}
			w.WriteHeader(http.StatusNoContent)
		}))
	}
	a, b := recv("a"), recv("b")
	defer a.Close()
	defer b.Close()
	ctx, stop := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer stop()
	n, err := Agent(ctx, AgentConfig{Loki: []string{a.URL, b.URL}, Rate: 200})
	mu.Lock()
	defer mu.Unlock()
	if err != nil || n < 80 || got["a"] == 0 || got["b"] == 0 || int64(got["a"]+got["b"]) != n {
		t.Fatalf("counted %d lines (%v); a received %d, b %d", n, err, got["a"], got["b"])
	}
}
