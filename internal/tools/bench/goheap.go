package bench

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// GoHeap is what a Go target's runtime reported at the step's largest
// heap (its /metrics, polled each second): the heap it holds from the
// system, how much of it was in use, and the collector's goal then.
// Go's goal is the heap live after the last collection times
// (1 + GOGC/100), so a long-lived structure weighs twice in the peak.
type GoHeap struct {
	// Held is heap in use plus idle heap not yet returned to the system.
	Held  int64 `json:"held_bytes"`
	InUse int64 `json:"in_use_bytes"`
	Goal  int64 `json:"goal_bytes"`
}

// heapPoller polls a /metrics endpoint for the Go runtime's heap figures
// and keeps those of the poll where the heap held was largest.
type heapPoller struct {
	url    string
	client *http.Client
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	peak GoHeap
}

const heapPollEvery = time.Second

func startHeapPoller(metricsURL string) *heapPoller {
	ctx, cancel := context.WithCancel(context.Background())
	p := &heapPoller{url: metricsURL, client: &http.Client{Timeout: 5 * time.Second}, cancel: cancel, done: make(chan struct{})}
	go p.loop(ctx)
	return p
}

func (p *heapPoller) loop(ctx context.Context) {
	defer close(p.done)
	t := time.NewTicker(heapPollEvery)
	defer t.Stop()
	for {
		if h, ok := p.poll(ctx); ok {
			p.mu.Lock()
			if h.Held > p.peak.Held {
				p.peak = h
			}
			p.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// finish stops polling; the zero GoHeap when no poll answered.
func (p *heapPoller) finish() GoHeap {
	p.cancel()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak
}

func (p *heapPoller) poll(ctx context.Context) (GoHeap, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return GoHeap{}, false
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return GoHeap{}, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return GoHeap{}, false
	}
	return parseGoHeap(bufio.NewScanner(resp.Body))
}

// parseGoHeap reads the go_memstats gauges both client_golang and
// VictoriaMetrics' metrics package expose.
func parseGoHeap(sc *bufio.Scanner) (GoHeap, bool) {
	v := map[string]float64{}
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || !strings.HasPrefix(name, "go_memstats_") {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
			v[name] = f
		}
	}
	inuse, ok := v["go_memstats_heap_inuse_bytes"]
	if !ok {
		return GoHeap{}, false
	}
	idle := v["go_memstats_heap_idle_bytes"] - v["go_memstats_heap_released_bytes"]
	return GoHeap{Held: int64(inuse + idle), InUse: int64(inuse), Goal: int64(v["go_memstats_next_gc_bytes"])}, true
}
