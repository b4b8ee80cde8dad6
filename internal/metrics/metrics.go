// Package metrics defines vloki's own Prometheus metrics.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is one registry with vloki's collectors.
type Metrics struct {
	reg             *prometheus.Registry
	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	backendDuration *prometheus.HistogramVec
	backendErrors   *prometheus.CounterVec
	backendPerReq   *prometheus.HistogramVec
}

// New registers vloki's collectors and the Go/process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vloki_requests_total", Help: "HTTP requests by route and status code.",
		}, []string{"route", "status"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vloki_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 12),
		}, []string{"route"}),
		backendDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vloki_backend_request_duration_seconds", Help: "VictoriaLogs request latency by endpoint.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 12),
		}, []string{"endpoint"}),
		backendErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vloki_backend_errors_total", Help: "Failed VictoriaLogs requests by endpoint.",
		}, []string{"endpoint"}),
		backendPerReq: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vloki_backend_requests_per_request", Help: "VictoriaLogs requests one HTTP request cost, by route.",
			Buckets: []float64{0, 1, 2, 4, 8, 16, 32, 64, 128},
		}, []string{"route"}),
	}
	m.reg.MustRegister(m.requests, m.requestDuration, m.backendDuration, m.backendErrors, m.backendPerReq,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ObserveRequest records one served HTTP request and how many
// VictoriaLogs requests it cost.
func (m *Metrics) ObserveRequest(route string, status int, d time.Duration, backendRequests int64) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.requestDuration.WithLabelValues(route).Observe(d.Seconds())
	m.backendPerReq.WithLabelValues(route).Observe(float64(backendRequests))
}

// ObserveBackend records one VictoriaLogs request.
func (m *Metrics) ObserveBackend(endpoint string, d time.Duration, err error) {
	m.backendDuration.WithLabelValues(endpoint).Observe(d.Seconds())
	if err != nil {
		m.backendErrors.WithLabelValues(endpoint).Inc()
	}
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// FrontendFigures are the query frontend's counters and cache usage.
type FrontendFigures struct {
	Hits, Misses, Stored, Coalesced, Invalidations uint64
	Bytes                                          uint64
	Entries                                        int
	Evictions                                      uint64
}

// ExtentFigures are the extent store's figures.
type ExtentFigures struct {
	Bytes                       uint64
	Entries                     int
	Evictions                   uint64
	StepsReused, StepsEvaluated uint64
}

// RegisterExtents exposes the extent store's figures, read at scrape time.
func (m *Metrics) RegisterExtents(read func() ExtentFigures) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vloki_extents_bytes", Help: "Bytes held by the store of range queries' frozen steps."},
			func() float64 { return float64(read().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vloki_extents_entries", Help: "Range queries whose frozen steps are kept."},
			func() float64 { return float64(read().Entries) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "vloki_extents_evictions_total", Help: "Extents evicted from the store."},
			func() float64 { return float64(read().Evictions) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "vloki_extent_steps_reused_total", Help: "Range query steps served from kept extents."},
			func() float64 { return float64(read().StepsReused) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "vloki_extent_steps_evaluated_total", Help: "Range query steps evaluated while extents were on."},
			func() float64 { return float64(read().StepsEvaluated) }),
	)
}

// RegisterFrontend exposes the frontend's figures, read at scrape time.
func (m *Metrics) RegisterFrontend(read func() FrontendFigures) {
	counter := func(name, help string, get func(FrontendFigures) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return get(read()) })
	}
	gauge := func(name, help string, get func(FrontendFigures) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return get(read()) })
	}
	m.reg.MustRegister(
		counter("vloki_results_cache_hits_total", "Answers served from the results cache.", func(f FrontendFigures) float64 { return float64(f.Hits) }),
		counter("vloki_results_cache_misses_total", "Cacheable requests not found in the results cache.", func(f FrontendFigures) float64 { return float64(f.Misses) }),
		counter("vloki_results_cache_stored_total", "Answers stored in the results cache.", func(f FrontendFigures) float64 { return float64(f.Stored) }),
		counter("vloki_results_cache_evictions_total", "Answers evicted from the results cache.", func(f FrontendFigures) float64 { return float64(f.Evictions) }),
		counter("vloki_results_cache_invalidations_total", "Tenant caches invalidated by a push of old entries.", func(f FrontendFigures) float64 { return float64(f.Invalidations) }),
		counter("vloki_coalesced_requests_total", "Requests answered by an identical request's execution.", func(f FrontendFigures) float64 { return float64(f.Coalesced) }),
		gauge("vloki_results_cache_bytes", "Bytes held by the results cache.", func(f FrontendFigures) float64 { return float64(f.Bytes) }),
		gauge("vloki_results_cache_entries", "Answers held by the results cache.", func(f FrontendFigures) float64 { return float64(f.Entries) }),
	)
}
