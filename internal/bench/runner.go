package bench

import (
	"net/http"
	"net/url"
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
	// Header goes with every request (tenant headers).
	Header http.Header
	// PIDs are the processes whose CPU and memory the step measures.
	PIDs []int
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

// targeter cycles through a workload's requests for a target: a target
// of twins skips queries without one. now gives the "now" of each request.
func targeter(tg Target, w Workload, now func() time.Time) (vegeta.Targeter, int) {
	n := len(w.Queries(now()))
	if tg.Twins {
		n = 0
		for _, q := range w.Queries(now()) {
			if q.Twin != nil {
				n++
			}
		}
	}
	var seq atomic.Uint64
	return func(t *vegeta.Target) error {
		qs := w.Queries(now())
		for {
			i := seq.Add(1)
			q := qs[i%uint64(len(qs))]
			path, params, hdr := q.Path, q.Params, q.Headers
			if tg.Twins {
				if q.Twin == nil {
					continue
				}
				path, params, hdr = q.Twin.Path, q.Twin.Params, nil
			}
			*t = vegeta.Target{Method: http.MethodGet, URL: tg.urlFor(i/uint64(len(qs))) + path + "?" + encode(params), Header: header(tg.Header, hdr)}
			return nil
		}
	}, n
}

// urlFor is the URL the i-th request goes to.
func (tg Target) urlFor(i uint64) string {
	if len(tg.Replicas) == 0 {
		return tg.URL
	}
	if n := i % uint64(len(tg.Replicas)+1); n > 0 {
		return tg.Replicas[n-1]
	}
	return tg.URL
}

func encode(params map[string]string) string {
	v := url.Values{}
	for k, p := range params {
		v.Set(k, p)
	}
	return v.Encode()
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

// attack fires one step and returns vegeta's metrics of it.
func attack(tr vegeta.Targeter, l Load, progress func(done uint64)) *vegeta.Metrics {
	opts := []func(*vegeta.Attacker){vegeta.Timeout(l.Timeout), vegeta.KeepAlive(true), vegeta.MaxBody(-1)}
	pacer := vegeta.Rate{Freq: 0}
	if l.Rate > 0 {
		pacer = vegeta.Rate{Freq: l.Rate, Per: time.Second}
		opts = append(opts, vegeta.MaxWorkers(10_000), vegeta.Connections(10_000))
	} else {
		opts = append(opts, vegeta.Workers(uint64(l.Clients)), vegeta.MaxWorkers(uint64(l.Clients)), vegeta.Connections(l.Clients))
	}
	a := vegeta.NewAttacker(opts...)
	var m vegeta.Metrics
	for r := range a.Attack(tr, pacer, l.Duration, "step") {
		m.Add(r)
		if progress != nil {
			progress(m.Requests)
		}
	}
	m.Close()
	return &m
}
