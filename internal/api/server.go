// Package api serves Loki's HTTP API: it decodes each request once into a
// typed request, calls the engine or the backend, and encodes Loki's exact
// wire format.
package api

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/engine"
	"github.com/vloki/vloki/internal/ingest"
	"github.com/vloki/vloki/internal/metrics"
	"github.com/vloki/vloki/internal/queue"
	"github.com/vloki/vloki/internal/tailhub"
	"github.com/vloki/vloki/internal/tenant"
	"github.com/vloki/vloki/internal/visibility"
)

// Deps are what the handlers need.
type Deps struct {
	Backend  *backend.Client
	Engine   *engine.Engine
	Tenants  *tenant.Resolver
	Metrics  *metrics.Metrics
	Log      *slog.Logger
	Ingester *ingest.Writer
	// MaxPushBodyBytes bounds a decompressed push body.
	MaxPushBodyBytes int64
	// MaxEntriesLimitPerQuery is Loki's max_entries_limit_per_query.
	MaxEntriesLimitPerQuery int
	// MaxQueryLength is Loki's max_query_length (0: unlimited).
	MaxQueryLength time.Duration
	// Ready reports whether the backend can serve; nil means always.
	Ready func() error
	// Tails hands acknowledged pushes to live tails; nil tails only
	// through VictoriaLogs.
	Tails *tailhub.Hub
	// TailFromBackend also tails VictoriaLogs itself, for rows other
	// agents or other vloki replicas write.
	TailFromBackend bool
	// Visibility, when set, makes reads wait until the tenant's
	// acknowledged pushes are searchable.
	Visibility *visibility.Syncer
	// Queue, when set, admits queries to bounded execution slots; a
	// query spanning more than LongQuerySpan takes a long slot.
	Queue         *queue.Queue
	LongQuerySpan time.Duration
	// DrilldownLimits are reported to Logs Drilldown.
	DrilldownLimits DrilldownLimits
}

// Server is the HTTP API.
type Server struct {
	d Deps
}

// New returns the API server.
func New(d Deps) *Server {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Metrics == nil {
		d.Metrics = metrics.New()
	}
	return &Server{d: d}
}

// route is one registered endpoint.
type route struct {
	pattern string
	name    string
	h       http.HandlerFunc
}

func (s *Server) routes() []route {
	t := s.tenantQuery
	q := func(h http.HandlerFunc) http.HandlerFunc { return t(s.scheduled(h)) }
	return []route{
		{"/loki/api/v1/push", "push", s.push},
		{"/api/prom/push", "push", s.push},
		{"/loki/api/v1/query_range", "query_range", q(s.queryRange)},
		{"/loki/api/v1/query", "query", q(s.queryInstant)},
		{"/loki/api/v1/tail", "tail", t(s.tail)}, // long-lived: not a query slot
		{"/loki/api/v1/labels", "labels", q(s.labels)},
		{"/loki/api/v1/label", "labels", q(s.labels)},
		{"/loki/api/v1/label/{name}/values", "label_values", q(s.labelValues)},
		{"/loki/api/v1/series", "series", q(s.series)},
		{"/loki/api/v1/index/volume", "volume", q(s.volume(false))},
		{"/loki/api/v1/index/volume_range", "volume_range", q(s.volume(true))},
		{"/loki/api/v1/index/stats", "index_stats", q(s.indexStats)},
		{"/loki/api/v1/detected_labels", "detected_labels", q(s.detectedLabels)},
		{"/loki/api/v1/patterns", "patterns", q(s.patterns)},
		{"/loki/api/v1/detected_fields", "detected_fields", q(s.detectedFields)},
		{"/loki/api/v1/detected_field/{name}/values", "detected_field_values", q(s.detectedFieldValues)},
		{"/loki/api/v1/format_query", "format_query", s.formatQuery},
		{"/loki/api/v1/status/buildinfo", "buildinfo", s.buildInfo},
		{"/ready", "ready", s.ready},
		{"/loki/api/v1/drilldown-limits", "drilldown_limits", s.drilldownLimits},
		{"/prometheus/api/v1/rules", "rules", s.rules},
		{"/prometheus/api/v1/alerts", "alerts", s.alerts},
	}
}

// Handler returns the routed, instrumented handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range s.routes() {
		mux.Handle(r.pattern, s.instrument(r.name, r.h))
	}
	mux.Handle("/metrics", s.d.Metrics.Handler())
	mux.Handle("/", s.instrument("not_found", func(w http.ResponseWriter, r *http.Request) {
		writeText(w, http.StatusNotFound, "404 page not found\n")
	}))
	return mux
}
