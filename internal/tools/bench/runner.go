package bench

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Target is one server under test.
type Target struct {
	Name string
	URL  string
	// Replicas are more URLs of the same server (replicas behind no load
	// balancer): requests take URL and them in turn.
	Replicas []string
	// Twins marks VictoriaLogs itself: it is asked the LogsQL twins.
	Twins bool
	// OwnEndpoint, with Twins, has the scale bench push VictoriaLogs in
	// its -via format through VictoriaLogs' own endpoint for that format
	// (jsonline otherwise).
	OwnEndpoint bool
	// TwinQueriesOnly asks only the queries that have a twin, so a
	// throughput compares with VictoriaLogs' on the same work.
	TwinQueriesOnly bool
	// Header goes with every request (tenant headers).
	Header http.Header
	// PIDs are the processes whose CPU and memory the step measures.
	PIDs []int
}

// metricsURL is where the target's own process reports its Go runtime
// (vloki, VictoriaLogs and Loki all serve /metrics); none without PIDs.
func (t Target) metricsURL() string {
	if len(t.PIDs) == 0 {
		return ""
	}
	return strings.TrimSuffix(t.URL, "/") + "/metrics"
}

// Load is how a step sends its requests.
type Load struct {
	// Clients is the closed loop's concurrency: each client waits for
	// its answer before sending the next request.
	Clients int
	// Rate, when > 0, makes it an open loop instead: requests a second
	// at a constant pace, whatever the answers' latency (no coordinated
	// omission; queueing shows in the latencies).
	Rate     int
	Duration time.Duration
	Timeout  time.Duration
}

// prepared is one request ready to send, built once per "now": raw
// HTTP/1.1 bytes for the closed loop, a vegeta target for the open one.
type prepared struct {
	query  string // the workload query's name, for per-query latencies
	addr   string
	raw    []byte
	target vegeta.Target
}

// source gives the i-th request of a step.
type source func(i uint64) *prepared

// requests cycles through a workload's requests for a target (a target
// of twins only those with one), over its URL and replicas in turn, each
// placed in time by the run's window mode. What is built for one "now"
// serves every request at that now; a mode where each request has its
// own now builds only the request sent.
func requests(tg Target, w Workload, win Window, runNow time.Time) (source, int) {
	type built struct {
		now  time.Time
		reqs [][]*prepared // [replica][query]
	}
	bases := append([]string{tg.URL}, tg.Replicas...)
	build := func(at time.Time) *built {
		b := &built{now: at}
		for _, base := range bases {
			var reqs []*prepared
			for _, q := range win.queries(w, at) {
				if p := prepareFor(tg, base, q); p != nil {
					reqs = append(reqs, p)
				}
			}
			b.reqs = append(b.reqs, reqs)
		}
		return b
	}
	began := time.Now()
	at := func(i uint64) time.Time {
		return win.nowOf(w, clock{runNow: runNow, began: began, wall: time.Now(), i: i})
	}
	var cur atomic.Pointer[built]
	cur.Store(build(at(0)))
	n := len(cur.Load().reqs[0])
	if n == 0 {
		return nil, 0
	}
	if win.perRequest() {
		return func(i uint64) *prepared { return oneRequest(tg, w, win, bases, at(i), i) }, n
	}
	return func(i uint64) *prepared {
		b := cur.Load()
		if now := at(i); !now.Equal(b.now) {
			b = build(now)
			cur.Store(b)
		}
		perURL := uint64(len(b.reqs[0]))
		return b.reqs[(i/perURL)%uint64(len(b.reqs))][i%perURL]
	}, n
}

// oneRequest builds the i-th request alone, at its own now.
func oneRequest(tg Target, w Workload, win Window, bases []string, at time.Time, i uint64) *prepared {
	var qs []Query
	for _, q := range win.queries(w, at) {
		if prepareFor(tg, bases[0], q) != nil {
			qs = append(qs, q)
		}
	}
	n := uint64(len(qs))
	return prepareFor(tg, bases[(i/n)%uint64(len(bases))], qs[i%n])
}

// prepareFor is q as tg is asked it: its twin for a twins target, nothing
// when tg is not asked q.
func prepareFor(tg Target, base string, q Query) *prepared {
	switch {
	case tg.Twins && q.Twin != nil:
		return named(q.Name, prepare(base, q.Twin.Path, q.Twin.Params, header(tg.Header, nil)))
	case !tg.Twins && (q.Twin != nil || !tg.TwinQueriesOnly):
		return named(q.Name, prepare(base, q.Path, q.Params, header(tg.Header, q.Headers)))
	}
	return nil
}

func named(query string, p *prepared) *prepared {
	p.query = query
	return p
}

// prepare builds a GET of base+path?params with h.
func prepare(base, path string, params map[string]string, h http.Header) *prepared {
	full := base + path + "?" + encode(params)
	p := &prepared{target: vegeta.Target{Method: http.MethodGet, URL: full, Header: h}}
	u, err := url.Parse(full)
	if err != nil {
		return p // the closed loop reports the failed dial
	}
	p.addr = u.Host
	var b bytes.Buffer
	b.WriteString("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: vloki-bench\r\n")
	_ = h.WriteSubset(&b, nil)
	b.WriteString("\r\n")
	p.raw = b.Bytes()
	return p
}

func encode(params map[string]string) string {
	v := url.Values{}
	for k, p := range params {
		v.Set(k, p)
	}
	return v.Encode() // sorted by key
}

func header(base http.Header, extra map[string]string) http.Header {
	h := base.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k, v := range extra {
		h.Set(k, v)
	}
	return h
}

// fire runs one step: the closed loop on keep-alive connections, the open
// loop (Rate) with vegeta's pacer.
func fire(src source, l Load, done *atomic.Uint64) *tally {
	if l.Rate > 0 {
		return openLoop(src, l, done)
	}
	return closedLoop(src, l, done)
}

// openLoop sends l.Rate requests a second with vegeta, whatever the
// answers' latency.
func openLoop(src source, l Load, done *atomic.Uint64) *tally {
	var seq atomic.Uint64
	tr := func(t *vegeta.Target) error { *t = src(seq.Add(1)).target; return nil }
	a := vegeta.NewAttacker(vegeta.Timeout(l.Timeout), vegeta.KeepAlive(true), vegeta.MaxBody(0),
		vegeta.MaxWorkers(10_000), vegeta.Connections(10_000))
	t := newTally()
	for r := range a.Attack(tr, vegeta.Rate{Freq: l.Rate, Per: time.Second}, l.Duration, "step") {
		var err error
		if r.Error != "" {
			err = stringError(r.Error)
		}
		t.add(r.Timestamp, r.Latency, int(r.Code), r.BytesIn, err)
		done.Add(1)
	}
	return t
}

type stringError string

func (e stringError) Error() string { return string(e) }
