package canary

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/grafana/loki/pkg/push"
	"github.com/klauspost/compress/snappy"
)

// fakeLoki is a small Loki for the checker's tests: it stores pushed
// entries, tails them and answers query_range and count_over_time, with
// faults to inject.
type fakeLoki struct {
	mu      sync.Mutex
	stored  map[int64]string
	tails   []chan [2]string
	pushes  int
	queries int

	// faults
	hideFromTail func(n int) bool // the n-th push is stored, not tailed
	lose         func(n int) bool // the n-th push is acknowledged, neither stored nor tailed
	tailTwice    func(n int) bool // the n-th push is tailed twice
	tailLater    func(n int) bool // the n-th push is tailed after the next one
	held         *[2]string
	refuse       func(n int) bool // the n-th push is answered 400
	closeTailAt  int              // the first tail closes after this many pushes
	foreignAt    int              // a line not the canary's is tailed after this many pushes
	tailHeld     time.Duration    // the tail delivers this late
}

func newFakeLoki(t *testing.T) (*fakeLoki, string) {
	f := &fakeLoki{stored: map[int64]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /loki/api/v1/push", f.push)
	mux.HandleFunc("GET /loki/api/v1/tail", f.tail)
	mux.HandleFunc("GET /loki/api/v1/query_range", f.queryRange)
	mux.HandleFunc("GET /loki/api/v1/query", f.query)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func (f *fakeLoki) push(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	raw, err := snappy.Decode(nil, body)
	var req push.PushRequest
	if err == nil {
		err = req.Unmarshal(raw)
	}
	if err != nil || len(req.Streams) != 1 || len(req.Streams[0].Entries) != 1 {
		http.Error(w, "bad push", http.StatusBadRequest)
		return
	}
	e := req.Streams[0].Entries[0]
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pushes++
	n := f.pushes
	is := func(p func(int) bool) bool { return p != nil && p(n) }
	if is(f.refuse) {
		http.Error(w, "refused", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
	if is(f.lose) {
		return
	}
	ts := e.Timestamp.UnixNano()
	f.stored[ts] = e.Line
	msg := [2]string{strconv.FormatInt(ts, 10), e.Line}
	switch {
	case is(f.hideFromTail):
	case is(f.tailLater):
		f.held = &msg
	default:
		for _, c := range f.tails {
			c <- msg
			if is(f.tailTwice) {
				c <- msg
			}
			if f.held != nil {
				c <- *f.held
			}
		}
		f.held = nil
	}
	if f.foreignAt == n {
		for _, c := range f.tails {
			c <- [2]string{msg[0], "not the canary's"}
		}
	}
	if f.closeTailAt == n {
		for _, c := range f.tails {
			close(c)
		}
		f.tails = nil
	}
}

var upgrader = websocket.Upgrader{}

func (f *fakeLoki) tail(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	c := make(chan [2]string, 10000)
	f.mu.Lock()
	f.tails = append(f.tails, c)
	f.mu.Unlock()
	go func() { // reads the client's close and pongs
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				return
			}
		}
	}()
	ping := time.NewTicker(50 * time.Millisecond)
	defer ping.Stop()
	for {
		select {
		case <-ping.C:
			if conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second)) != nil {
				return
			}
		case m, ok := <-c:
			if !ok {
				return
			}
			time.Sleep(f.tailHeld)
			b, _ := json.Marshal(map[string]any{"streams": []any{map[string]any{
				"stream": map[string]string{"name": "loki-canary"}, "values": [][2]string{m},
			}}})
			if conn.WriteMessage(websocket.TextMessage, b) != nil {
				return
			}
		}
	}
}

func (f *fakeLoki) queryRange(w http.ResponseWriter, r *http.Request) {
	start, _ := strconv.ParseInt(r.FormValue("start"), 10, 64)
	end, _ := strconv.ParseInt(r.FormValue("end"), 10, 64)
	limit, _ := strconv.Atoi(r.FormValue("limit"))
	f.mu.Lock()
	f.queries++
	var ts []int64
	for t := range f.stored {
		if t >= start && t < end {
			ts = append(ts, t)
		}
	}
	slices.Sort(ts)
	if len(ts) > limit {
		ts = ts[:limit]
	}
	values := [][2]string{}
	for _, t := range ts {
		values = append(values, [2]string{strconv.FormatInt(t, 10), f.stored[t]})
	}
	f.mu.Unlock()
	writeJSON(w, map[string]any{"status": "success", "data": map[string]any{
		"resultType": "streams", "result": []any{map[string]any{"stream": map[string]string{}, "values": values}},
	}})
}

var rangeRE = regexp.MustCompile(`\[(\d+)ms\]`)

func (f *fakeLoki) query(w http.ResponseWriter, r *http.Request) {
	m := rangeRE.FindStringSubmatch(r.FormValue("query"))
	t, _ := strconv.ParseInt(r.FormValue("time"), 10, 64)
	if m == nil {
		http.Error(w, "bad query", http.StatusBadRequest)
		return
	}
	ms, _ := strconv.ParseInt(m[1], 10, 64)
	f.mu.Lock()
	n := 0
	for ts := range f.stored {
		if ts > t-ms*int64(time.Millisecond) && ts <= t {
			n++
		}
	}
	f.mu.Unlock()
	writeJSON(w, map[string]any{"status": "success", "data": map[string]any{
		"resultType": "vector", "result": []any{map[string]any{"metric": map[string]string{}, "value": []any{float64(t) / 1e9, strconv.Itoa(n)}}},
	}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
