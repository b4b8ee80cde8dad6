package bench

import (
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// TestHeapPollerReadsGoMetrics: the poller reads this process's own Go
// runtime through client_golang's collector, as vloki serves it, and
// keeps the largest heap it saw.
func TestHeapPollerReadsGoMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector())
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()

	p := startHeapPoller(srv.URL)
	buf := make([]byte, 96<<20)
	for i := range buf {
		buf[i] = 1
	}
	time.Sleep(heapPollEvery + 300*time.Millisecond)
	h := p.finish()
	runtime.KeepAlive(buf)
	if h.InUse < 96<<20 || h.Held < h.InUse || h.Goal <= 0 {
		t.Fatalf("heap %+v: want ≥ 96 MiB in use, held ≥ in use, a goal", h)
	}
}

// TestHeapPollerWithoutMetrics: a target with no Go figures reports none.
func TestHeapPollerWithoutMetrics(t *testing.T) {
	srv := httptest.NewServer(promhttp.HandlerFor(prometheus.NewRegistry(), promhttp.HandlerOpts{}))
	defer srv.Close()
	if h := startHeapPoller(srv.URL).finish(); h != (GoHeap{}) {
		t.Fatalf("heap %+v from an empty registry", h)
	}
}
