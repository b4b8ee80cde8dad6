// Package metrics defines vloki's own Prometheus metrics.
package metrics

import (
	"net/http"
	"strconv"
	"strings"
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
	labelAnswers    *prometheus.CounterVec
	seriesAnswers   *prometheus.CounterVec
	volumeAnswers   *prometheus.CounterVec
	patternAnswers  *prometheus.CounterVec
	pushedEntries   prometheus.Counter
	pushedBytes     prometheus.Counter
	ruleFileErrors  prometheus.Counter
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
	m.pushedEntries = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "vloki_pushed_entries_total", Help: "Entries VictoriaLogs acknowledged, pushed through vloki."})
	m.pushedBytes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "vloki_pushed_bytes_total", Help: "Line and structured metadata bytes of the acknowledged entries."})
	m.ruleFileErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "vloki_ruler_rule_file_errors_total", Help: "Reads of rule namespace files that failed to parse or validate (each such namespace is left out; the log names it)."})
	m.labelAnswers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vloki_label_answers_total", Help: "Label names and values answers by source: memory (the stream index) or storage.",
	}, []string{"source"})
	m.seriesAnswers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vloki_series_answers_total", Help: "series answers by source: memory (the stream index's entry times) or storage.",
	}, []string{"source"})
	m.volumeAnswers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vloki_volume_answers_total", Help: "index/volume, volume_range and index/stats answers by source: memory (the stream index's line lengths) or storage.",
	}, []string{"source"})
	m.patternAnswers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vloki_pattern_answers_total", Help: "patterns answers by source: memory (mined as pushes came) or storage (mined from stored lines when asked).",
	}, []string{"source"})
	m.reg.MustRegister(m.volumeAnswers, m.patternAnswers, m.requests, m.requestDuration, m.backendDuration, m.backendErrors, m.backendPerReq,
		m.pushedEntries, m.pushedBytes, m.labelAnswers, m.seriesAnswers, m.ruleFileErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// RequestObserver records the served HTTP requests of one route and how
// many VictoriaLogs requests each cost; the route's series are looked up
// once (the common status's too), not on every request.
func (m *Metrics) RequestObserver(route string) func(status int, d time.Duration, backendRequests int64) {
	ok := m.requests.WithLabelValues(route, "200")
	duration := m.requestDuration.WithLabelValues(route)
	perReq := m.backendPerReq.WithLabelValues(route)
	return func(status int, d time.Duration, backendRequests int64) {
		if status == 200 {
			ok.Inc()
		} else {
			m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
		}
		duration.Observe(d.Seconds())
		perReq.Observe(float64(backendRequests))
	}
}

// ObserveBackend records one VictoriaLogs request.
func (m *Metrics) ObserveBackend(endpoint string, d time.Duration, err error) {
	m.backendDuration.WithLabelValues(endpoint).Observe(d.Seconds())
	if err != nil {
		m.backendErrors.WithLabelValues(endpoint).Inc()
	}
}

// ObservePush records acknowledged entries and their bytes.
func (m *Metrics) ObservePush(entries, bytes int) {
	m.pushedEntries.Add(float64(entries))
	m.pushedBytes.Add(float64(bytes))
}

// ObserveLabelAnswer records where a label names or values answer came from.
func (m *Metrics) ObserveLabelAnswer(fromMemory bool) {
	m.labelAnswers.WithLabelValues(source(fromMemory)).Inc()
}

// ObserveSeriesAnswer records where a series answer came from.
func (m *Metrics) ObserveSeriesAnswer(fromMemory bool) {
	m.seriesAnswers.WithLabelValues(source(fromMemory)).Inc()
}

// ObserveVolumeAnswer records where a volume answer came from.
func (m *Metrics) ObserveVolumeAnswer(fromMemory bool) {
	m.volumeAnswers.WithLabelValues(source(fromMemory)).Inc()
}

// ObservePatternAnswer records where a patterns answer came from.
func (m *Metrics) ObservePatternAnswer(fromMemory bool) {
	m.patternAnswers.WithLabelValues(source(fromMemory)).Inc()
}

func source(fromMemory bool) string {
	if fromMemory {
		return "memory"
	}
	return "storage"
}

// Registerer is the registry, for collectors of other packages (the
// ruler's rules managers).
func (m *Metrics) Registerer() prometheus.Registerer { return m.reg }

// ObserveRuleFileError counts a rule namespace file that failed to read.
func (m *Metrics) ObserveRuleFileError() { m.ruleFileErrors.Inc() }

// RegisterStreamIndex exposes the stream index's size.
func (m *Metrics) RegisterStreamIndex(streams, lines func() int, metricAnswers func() int64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "vloki_stream_index_streams", Help: "Streams the stream index keeps, across tenants."},
		func() float64 { return float64(streams()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "vloki_stream_index_lines", Help: "Entries whose time and line length the stream index keeps for volumes."},
			func() float64 { return float64(lines()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "vloki_stream_index_metric_answers_total", Help: "Range aggregations over bare selectors the stream index answered."},
			func() float64 { return float64(metricAnswers()) }))
}

// RegisterNeedleIndex exposes the size of the needle index's filters.
func (m *Metrics) RegisterNeedleIndex(bytes func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "vloki_needle_index_bytes", Help: "Bytes of the hourly filters of long words that narrow substring searches."},
		func() float64 { return float64(bytes()) }))
}

// RegisterPeers exposes the replicas that together are the only writers
// (package peers): whether this one holds every other's lease, and how
// often it started over after pushes it was not told of.
func (m *Metrics) RegisterPeers(trusted func() bool, gaps func() int64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "vloki_sole_writer_peers_trusted", Help: "1 while this replica holds every other sole-writer replica's lease (it knows every push)."},
		func() float64 {
			if trusted() {
				return 1
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "vloki_sole_writer_peers_gaps_total", Help: "Times this replica started over because another acknowledged pushes it may not have been told of."},
			func() float64 { return float64(gaps()) }))
}

// RegisterRecentLogs exposes the store of log queries' frozen spans.
func (m *Metrics) RegisterRecentLogs(usage func() (bytes, spans, hits int64)) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "vloki_recent_logs_bytes", Help: "Bytes the store of log queries' frozen spans holds."},
		func() float64 { b, _, _ := usage(); return float64(b) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "vloki_recent_logs_spans", Help: "Frozen spans the store holds (disjoint intervals of log queries' answers)."},
			func() float64 { _, n, _ := usage(); return float64(n) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "vloki_recent_logs_hits_total", Help: "Log queries answered from a kept span and a read of what is newer."},
			func() float64 { _, _, h := usage(); return float64(h) }))
}

// Names lists every metric name the registry exposes, vectors that have
// not been observed yet included (as their Desc names them).
func (m *Metrics) Names() []string {
	descs := make(chan *prometheus.Desc)
	go func() {
		m.reg.Describe(descs)
		close(descs)
	}()
	var names []string
	for d := range descs {
		names = append(names, descName(d))
	}
	return names
}

// descName reads the fqName out of a Desc, which exposes it only in
// its String form: Desc{fqName: "name", ...}.
func descName(d *prometheus.Desc) string {
	s := d.String()
	const prefix = `Desc{fqName: "`
	if i := strings.Index(s, prefix); i >= 0 {
		rest := s[i+len(prefix):]
		if j := strings.IndexByte(rest, '"'); j >= 0 {
			return rest[:j]
		}
	}
	return ""
}

// RuntimeFigures are what vloki is doing right now.
type RuntimeFigures struct {
	QueriesRunning, QueriesWaiting int
	// LiveTails are open tail connections; BackendTails the VictoriaLogs
	// live tails they share.
	LiveTails, BackendTails int
	// BackendUnreachable: the circuit breaker is open.
	BackendUnreachable bool
}

// RegisterRuntime exposes the runtime figures, read at scrape time.
func (m *Metrics) RegisterRuntime(read func() RuntimeFigures) {
	gauge := func(name, help string, get func(RuntimeFigures) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return get(read()) })
	}
	m.reg.MustRegister(
		gauge("vloki_queries_running", "Queries the admission queue lets run now.", func(f RuntimeFigures) float64 { return float64(f.QueriesRunning) }),
		gauge("vloki_queries_waiting", "Queries waiting in the admission queue.", func(f RuntimeFigures) float64 { return float64(f.QueriesWaiting) }),
		gauge("vloki_live_tails", "Open live tail connections.", func(f RuntimeFigures) float64 { return float64(f.LiveTails) }),
		gauge("vloki_backend_live_tails", "VictoriaLogs live tails the open tails share.", func(f RuntimeFigures) float64 { return float64(f.BackendTails) }),
		gauge("vloki_backend_unreachable", "1 while the circuit breaker fails VictoriaLogs requests fast.", func(f RuntimeFigures) float64 {
			if f.BackendUnreachable {
				return 1
			}
			return 0
		}),
	)
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// FrontendFigures are the query frontend's counters and cache usage.
type FrontendFigures struct {
	Hits, Misses, Stored, Coalesced, Invalidations uint64
	// StepsHits are the hits of metric range queries by their steps.
	StepsHits uint64
	Bytes     uint64
	Entries   int
	Evictions uint64
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

// SampleFigures are the frozen-samples store's figures.
type SampleFigures struct {
	Bytes                  int64
	Entries                int
	Hits, Fills, Evictions uint64
}

// RegisterSamples exposes the frozen-samples store's figures, read at
// scrape time.
func (m *Metrics) RegisterSamples(read func() SampleFigures) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vloki_frozen_samples_bytes", Help: "Bytes held by the store of samples range aggregations extracted from frozen data."},
			func() float64 { return float64(read().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vloki_frozen_samples_entries", Help: "Range aggregation inputs whose frozen samples are kept."},
			func() float64 { return float64(read().Entries) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "vloki_frozen_samples_hits_total", Help: "Range aggregation evaluations that took kept frozen samples."},
			func() float64 { return float64(read().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "vloki_frozen_samples_stored_total", Help: "Entries of frozen samples stored."},
			func() float64 { return float64(read().Fills) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "vloki_frozen_samples_evictions_total", Help: "Entries of frozen samples evicted."},
			func() float64 { return float64(read().Evictions) }),
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
		counter("vloki_results_cache_steps_hits_total", "Metric range answers served from the results cache by their steps (another end within the last step, no push since at or before it).", func(f FrontendFigures) float64 { return float64(f.StepsHits) }),
		counter("vloki_results_cache_misses_total", "Cacheable requests not found in the results cache.", func(f FrontendFigures) float64 { return float64(f.Misses) }),
		counter("vloki_results_cache_stored_total", "Answers stored in the results cache.", func(f FrontendFigures) float64 { return float64(f.Stored) }),
		counter("vloki_results_cache_evictions_total", "Answers evicted from the results cache.", func(f FrontendFigures) float64 { return float64(f.Evictions) }),
		counter("vloki_results_cache_invalidations_total", "Tenant caches invalidated by a push of old entries.", func(f FrontendFigures) float64 { return float64(f.Invalidations) }),
		counter("vloki_coalesced_requests_total", "Requests answered by an identical request's execution.", func(f FrontendFigures) float64 { return float64(f.Coalesced) }),
		gauge("vloki_results_cache_bytes", "Bytes held by the results cache.", func(f FrontendFigures) float64 { return float64(f.Bytes) }),
		gauge("vloki_results_cache_entries", "Answers held by the results cache.", func(f FrontendFigures) float64 { return float64(f.Entries) }),
	)
}
