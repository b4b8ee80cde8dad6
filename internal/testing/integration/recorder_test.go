package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
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

	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// queryRecorder notes every LogsQL query sent to VictoriaLogs, with the
// tenant headers it went with.
type queryRecorder struct {
	mu      sync.Mutex
	queries []recordedQuery
	// answered is the bytes of VictoriaLogs' answers to them.
	answered atomic.Int64
	// delay holds each query this long before it goes on.
	delay time.Duration
	// inFlight counts the queries being answered; mostInFlight is its
	// highest value.
	inFlight, mostInFlight atomic.Int64
}

type recordedQuery struct {
	query  string
	header http.Header
}

// recordedVictoriaLogs starts the newest victoria-logs release behind a
// queryRecorder holding each query delay, stopped with the test: a client
// through the recorder, the recorder and the process's own URL.
func recordedVictoriaLogs(t *testing.T, delay time.Duration) (*backend.Client, *queryRecorder, string) {
	t.Helper()
	proc, err := vltest.Releases[len(vltest.Releases)-1].Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	rec := &queryRecorder{delay: delay}
	c, err := backend.New(rec.proxy(t, proc.URL), backend.NewHTTPTransport(), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c, rec, proc.URL
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
			n := rec.inFlight.Add(1)
			defer rec.inFlight.Add(-1)
			for old := rec.mostInFlight.Load(); n > old && !rec.mostInFlight.CompareAndSwap(old, n); old = rec.mostInFlight.Load() {
			}
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
