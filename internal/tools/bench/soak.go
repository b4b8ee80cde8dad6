package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SoakConfig is a soak: every workload mixed at many clients for a long
// while, with pushes alongside that are counted back afterwards.
type SoakConfig struct {
	Now      time.Time
	Target   Target
	Clients  int
	Duration time.Duration
	// PushRate is lines a second pushed into the soak stream.
	PushRate int
}

// SoakResult is what a soak saw.
type SoakResult struct {
	Requests   uint64         `json:"requests"`
	Codes      map[string]int `json:"status_codes"`
	P99        time.Duration  `json:"p99"`
	RSS        []int64        `json:"rss_bytes_per_second"`
	LinesSent  int64          `json:"lines_sent"`
	LinesAcked int64          `json:"lines_acked"`
	LinesFound int            `json:"lines_found"`
	PushErrors map[int]int    `json:"push_errors"`
}

// Soak runs the mixed workload and the pusher together, then counts the
// acknowledged lines back.
func Soak(ctx context.Context, cfg SoakConfig) (*SoakResult, error) {
	res := &SoakResult{PushErrors: map[int]int{}}
	started := time.Now()
	stopRSS := sampleRSS(cfg.Target, &res.RSS)
	var pushWG sync.WaitGroup
	pushCtx, stopPush := context.WithCancel(ctx)
	pushWG.Add(1)
	go func() { defer pushWG.Done(); push(pushCtx, cfg, res, started) }()
	var done atomic.Uint64
	m := closedLoop(mixedRequests(cfg), Load{Clients: cfg.Clients, Duration: cfg.Duration, Timeout: 2 * time.Minute}, &done)
	stopPush()
	pushWG.Wait()
	stopRSS()
	res.Requests, res.Codes, res.P99 = m.requests, m.codes, m.quantile(0.99)
	found, err := countSoakLines(ctx, cfg.Target, started)
	res.LinesFound = found
	return res, err
}

// mixedRequests takes every workload's queries in turn.
func mixedRequests(cfg SoakConfig) source {
	var reqs []*prepared
	for _, w := range Workloads() {
		for _, q := range w.Queries(cfg.Now) {
			reqs = append(reqs, prepare(cfg.Target.URL, q.Path, q.Params, header(cfg.Target.Header, q.Headers)))
		}
	}
	return func(i uint64) *prepared { return reqs[i%uint64(len(reqs))] }
}

// push sends PushRate lines a second, in ten batches, until ctx ends;
// every line is unique and stamped with its wall-clock time.
func push(ctx context.Context, cfg SoakConfig, res *SoakResult, started time.Time) {
	perBatch := max(cfg.PushRate/10, 1)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for seq := 0; ; seq++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var values []string
		for i := range perBatch {
			values = append(values, fmt.Sprintf(`["%d","soak line %d-%d"]`, time.Now().UnixNano()+int64(i), seq, i))
		}
		body := `{"streams":[{"stream":{"app":"soak","env":"soak"},"values":[` + strings.Join(values, ",") + `]}]}`
		atomic.AddInt64(&res.LinesSent, int64(perBatch))
		status := postPush(ctx, cfg.Target, body)
		if status == http.StatusNoContent {
			atomic.AddInt64(&res.LinesAcked, int64(perBatch))
		} else if ctx.Err() == nil {
			res.PushErrors[status]++
		}
	}
}

func postPush(ctx context.Context, tg Target, body string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tg.URL+"/loki/api/v1/push", strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header = header(tg.Header, map[string]string{"Content-Type": "application/json"})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// countSoakLines counts the soak stream's lines since the soak began.
func countSoakLines(ctx context.Context, tg Target, since time.Time) (int, error) {
	window := time.Since(since) + time.Minute
	q := url.Values{"query": {fmt.Sprintf(`sum(count_over_time({app="soak"}[%ds]))`, int(window.Seconds()))}, "time": {ns(time.Now())}}
	n := instantValue(ctx, tg, q)
	if n < 0 {
		return 0, fmt.Errorf("counting the soak lines failed")
	}
	return n, nil
}

// sampleRSS records the target's RSS once a second until stopped.
func sampleRSS(tg Target, out *[]int64) func() {
	if len(tg.PIDs) == 0 {
		return func() {}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			*out = append(*out, rssBytes(tg.PIDs[0]))
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(stop); <-done }
}

// Markdown summarises a soak.
func (r *SoakResult) Markdown(cfg SoakConfig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "soak: %d clients, %s, every workload mixed; %d lines/s pushed alongside\n\n", cfg.Clients, cfg.Duration, cfg.PushRate)
	fmt.Fprintf(&b, "- requests: %d, status codes: %v, p99 %s\n", r.Requests, r.Codes, ms(r.P99))
	if n := len(r.RSS); n > 0 {
		first, last := r.RSS[:max(n/4, 1)], r.RSS[n-max(n/4, 1):]
		fmt.Fprintf(&b, "- RSS: start %s, end %s, peak %s; mean of the first quarter %s, of the last %s\n",
			mib(r.RSS[0]), mib(r.RSS[n-1]), mib(peak(r.RSS)), mib(mean(first)), mib(mean(last)))
	}
	fmt.Fprintf(&b, "- pushed lines: sent %d, acknowledged %d, found %d; push errors by status %v\n", r.LinesSent, r.LinesAcked, r.LinesFound, r.PushErrors)
	return b.String()
}

func peak(xs []int64) int64 {
	var p int64
	for _, x := range xs {
		p = max(p, x)
	}
	return p
}

func mean(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s / int64(max(len(xs), 1))
}
