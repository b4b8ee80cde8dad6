package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestFrozenSamplesFillReadsAtMostItsBound: a sum over more entries than
// the frozen samples store keeps per input asks VictoriaLogs for counts
// per exact timestamp once, and VictoriaLogs must stop at the bound, not
// group every entry of the span first (at 5 M lines a day that held GBs
// in the storage for each such request). Asked again, each exact-time
// query vloki sent must count at most the bound plus one entry, and the
// answers stay those of the bucket path.
func TestFrozenSamplesFillReadsAtMostItsBound(t *testing.T) {
	const lines, bound = 25_000, 20_000 // bound: metric.maxTimeStatsSamples
	proc, err := vltest.Releases[len(vltest.Releases)-1].Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	rec := &queryRecorder{}
	c, err := backend.New(rec.proxy(t, proc.URL), backend.NewHTTPTransport(), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := serve(t, config.Default(), c, "timestats")
	for from := 0; from < lines; from += 5000 {
		es := make([]entry, 5000)
		for i := range es {
			es[i] = entry{ns(base.Add(time.Duration(from+i) * 100 * time.Millisecond)), "line " + strconv.Itoa(from+i)}
		}
		tg.pushJSON(t, "", jsonPush(map[string]string{"app": "fill"}, es...))
	}
	query := `sum(count_over_time({app="fill"}[1m]))`
	var totals []float64
	for _, step := range []string{"60", "30", "20"} { // a second grid asks for the fill
		r := tg.get(t, "/loki/api/v1/query_range", "", url.Values{"query": {query}, "start": {ns(base)}, "end": {ns(base.Add(time.Hour))}, "step": {step}}, nil)
		if r.status != http.StatusOK {
			t.Fatalf("step %s: %d %s", step, r.status, r.body)
		}
		totals = append(totals, sumOfWindows(t, r.body))
	}
	exact := rec.matching(func(q string) bool { return strings.Contains(q, "stats by (_time)") })
	if len(exact) == 0 {
		t.Fatalf("no query per exact timestamp was sent: the check proves nothing; queries: %q", rec.matching(func(string) bool { return true }))
	}
	for _, q := range exact {
		if n := countedBy(t, proc.URL, q); n > bound+1 {
			t.Errorf("VictoriaLogs counted %d entries for %s; at most %d needed", n, q.query, bound+1)
		}
	}
	for i, step := range []time.Duration{time.Minute, 30 * time.Second, 20 * time.Second} {
		if want := windowCounts(lines, step); totals[i] != want {
			t.Errorf("at step %v the windows count %v entries, want %v", step, totals[i], want)
		}
	}
}

// windowCounts adds up, over the steps of [base, base+1h], the entries
// (one every 100 ms from base) in each window (t-1m, t].
func windowCounts(lines int, step time.Duration) float64 {
	total := 0
	for t := time.Duration(0); t <= time.Hour; t += step {
		for i := range lines {
			if at := time.Duration(i) * 100 * time.Millisecond; at > t-time.Minute && at <= t {
				total++
			}
		}
	}
	return float64(total)
}

// queryRecorder notes every LogsQL query sent to VictoriaLogs, with the
// tenant headers it went with.
type queryRecorder struct {
	mu      sync.Mutex
	queries []recordedQuery
	// answered is the bytes of VictoriaLogs' answers to them.
	answered atomic.Int64
	// delay holds each query this long before it goes on.
	delay time.Duration
}

type recordedQuery struct {
	query  string
	header http.Header
}

func (rec *queryRecorder) proxy(t *testing.T, to string) string {
	u, err := url.Parse(to)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/select/logsql/query" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			form, _ := url.ParseQuery(string(body))
			q := form.Get("query")
			if q == "" {
				q = r.URL.Query().Get("query")
			}
			rec.mu.Lock()
			rec.queries = append(rec.queries, recordedQuery{q, r.Header.Clone()})
			rec.mu.Unlock()
			w = countingWriter{w, &rec.answered}
			time.Sleep(rec.delay)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// countingWriter adds the bytes written through it to n.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w countingWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p)))
	return w.ResponseWriter.Write(p)
}

func (w countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (rec *queryRecorder) matching(keep func(string) bool) []recordedQuery {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []recordedQuery
	for _, q := range rec.queries {
		if keep(q.query) {
			out = append(out, q)
		}
	}
	return out
}

// countedBy asks VictoriaLogs q again and adds up its c column.
func countedBy(t *testing.T, vl string, q recordedQuery) int64 {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, vl+"/select/logsql/query", strings.NewReader(url.Values{"query": {q.query}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, h := range []string{"AccountID", "ProjectID"} {
		req.Header.Set(h, q.header.Get(h))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var total int64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var row struct{ C string }
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
		n, err := strconv.ParseInt(row.C, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
		total += n
	}
	if resp.StatusCode != http.StatusOK || sc.Err() != nil {
		t.Fatalf("%s: %d %v", q.query, resp.StatusCode, sc.Err())
	}
	return total
}

// sumOfWindows adds up every value of a matrix answer.
func sumOfWindows(t *testing.T, body []byte) float64 {
	t.Helper()
	var m struct {
		Data struct {
			Result []struct {
				Values [][2]any `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, s := range m.Data.Result {
		for _, v := range s.Values {
			f, err := strconv.ParseFloat(fmt.Sprint(v[1]), 64)
			if err != nil {
				t.Fatal(err)
			}
			total += f
		}
	}
	return total
}
