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
	}
	m.reg.MustRegister(m.requests, m.requestDuration, m.backendDuration, m.backendErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ObserveRequest records one served HTTP request.
func (m *Metrics) ObserveRequest(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.requestDuration.WithLabelValues(route).Observe(d.Seconds())
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
