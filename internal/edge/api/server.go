// Package api serves Loki's HTTP API: it decodes each request once into a
// typed request, calls one service (the engine for LogQL queries, the
// querier for the other reads, tail for live tails, the ingester for
// pushes), and encodes Loki's exact wire format.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/acked/readyourwrites"
	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/live/tail"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/frontend"
	"github.com/vloki/vloki/internal/read/querier"
	"github.com/vloki/vloki/internal/read/queue"
	"github.com/vloki/vloki/internal/write/deletion"
	"github.com/vloki/vloki/internal/write/ingest"
	"github.com/vloki/vloki/internal/write/otlp"
)

// Deps are what the handlers need.
type Deps struct {
	// Engine answers LogQL queries; Querier the other reads; Tail opens
	// live tails.
	Engine   *engine.Engine
	Querier  *querier.Querier
	Tail     *tail.Service
	Tenants  *tenant.Resolver
	Metrics  *metrics.Metrics
	Log      *slog.Logger
	Ingester *ingest.Writer
	// MaxPushBodyBytes bounds a decompressed push body.
	MaxPushBodyBytes int64
	// OTLP maps OpenTelemetry attributes (nil: Loki's default).
	OTLP *otlp.Config
	// Limits are each tenant's limits (entries, query length, those
	// Logs Drilldown reads, the ruler's).
	Limits *limits.Overrides
	// Ready reports whether the backend can serve; nil means always.
	Ready func() error
	// Visibility, when set, makes reads wait until the tenant's
	// acknowledged pushes are searchable.
	Visibility *readyourwrites.Syncer
	// Queue, when set, admits queries to bounded execution slots; a
	// query spanning more than LongQuerySpan takes a long slot.
	Queue         *queue.Queue
	LongQuerySpan time.Duration
	// Frontend, when set, coalesces identical queries and caches answers
	// over ranges that can no longer change.
	Frontend *frontend.Frontend
	// CompressResponses gzips query answers as Loki's compress_responses.
	CompressResponses bool
	// Deletes serves Loki's delete API (nil: its routes are absent, as in
	// a Loki without retention).
	Deletes *deletion.Service
	// Ruler serves Loki's ruler API from a rule store (nil: the YAML
	// routes are absent and the Prometheus ones list no rule groups).
	Ruler *Ruler
	// Peers serves the other replicas' requests under /vloki/peers/ (nil:
	// no replicas, package peers).
	Peers http.Handler
}

// Server is the HTTP API.
type Server struct {
	d Deps
	// closing is closed when vloki begins to shut down: tails end with
	// a close frame, /ready reports not ready.
	closing   chan struct{}
	closeOnce sync.Once
	tails     sync.WaitGroup
	open      openTails
	// compress is Loki's response compression (nil: off).
	compress func(http.Handler) http.Handler
}

// New returns the API server.
func New(d Deps) *Server {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Metrics == nil {
		d.Metrics = metrics.New()
	}
	if d.Frontend == nil { // no cache, no coalescing: the reads still wait for the tenant's pushes
		var wait func(context.Context, tenant.ID) error
		if d.Visibility != nil {
			wait = d.Visibility.Wait
		}
		d.Frontend = frontend.New(frontend.Config{WaitVisible: wait})
	}
	s := &Server{d: d, closing: make(chan struct{})}
	if d.CompressResponses {
		s.compress = frontend.Compressor()
	}
	return s
}

// BeginShutdown ends live tails with a "going away" close frame and makes
// /ready answer 503, so load balancers stop sending; it returns when the
// tails ended or ctx did.
func (s *Server) BeginShutdown(ctx context.Context) {
	s.closeOnce.Do(func() { close(s.closing) })
	done := make(chan struct{})
	go func() { s.tails.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// route is one registered endpoint.
type route struct {
	pattern string
	name    string
	h       http.HandlerFunc
}

func (s *Server) routes() []route {
	t := s.withTenant
	queryRange, labels := readRoute(s, "query_range", s.decodeRange, s.queryRange), readRoute(s, "labels", s.decodeLabels(false), s.labels)
	routes := []route{
		{"/loki/api/v1/push", "push", s.push},
		{"/api/prom/push", "push", s.push},
		{"/otlp/v1/logs", "otlp_push", s.otlpLogs},
		{"/loki/api/v1/query_range", "query_range", queryRange},
		{"/loki/api/v1/query", "query", readRoute(s, "query", s.decodeInstant, s.queryInstant)},
		{"/loki/api/v1/tail", "tail", t(s.tail)}, // long-lived: not a query slot
		{"/loki/api/v1/labels", "labels", labels},
		{"/loki/api/v1/label", "labels", labels},
		{"/loki/api/v1/label/{name}/values", "label_values", readRoute(s, "label_values", s.decodeLabels(true), s.labels)},
		{"/loki/api/v1/series", "series", readRoute(s, "series", s.decodeSeries, s.series)},
		{"/loki/api/v1/index/volume", "volume", readRoute(s, "volume", s.decodeVolume(false), s.volume)},
		{"/loki/api/v1/index/volume_range", "volume_range", readRoute(s, "volume_range", s.decodeVolume(true), s.volume)},
		{"/loki/api/v1/index/stats", "index_stats", readRoute(s, "index_stats", s.decodeIndexStats, s.indexStats)},
		{"/loki/api/v1/detected_labels", "detected_labels", readRoute(s, "detected_labels", s.decodeLabels(false), s.detectedLabels)},
		{"/loki/api/v1/patterns", "patterns", readRoute(s, "patterns", s.decodePatterns, s.patterns)},
		{"/loki/api/v1/detected_fields", "detected_fields", readRoute(s, "detected_fields", s.decodeDetected(false), s.detectedFields)},
		{"/loki/api/v1/detected_field/{name}/values", "detected_field_values", readRoute(s, "detected_field_values", s.decodeDetected(true), s.detectedFieldValues)},
		{"/loki/api/v1/format_query", "format_query", s.formatQuery},
		{"/loki/api/v1/status/buildinfo", "buildinfo", s.buildInfo},
		{"/ready", "ready", s.ready},
		{"/loki/api/v1/drilldown-limits", "drilldown_limits", s.drilldownLimits},
		{"/prometheus/api/v1/rules", "rules", s.rules},
		{"/prometheus/api/v1/alerts", "alerts", s.alerts},
		// Loki's legacy API, named as the operations it runs (Loki's
		// frontend treats them alike), so the frontend caches and
		// coalesces them as those.
		{"/api/prom/query", "query_range", readRoute(s, "query_range", s.decodeLegacyQuery, s.legacyQuery)},
		{"/api/prom/label", "labels", readRoute(s, "labels", s.decodeLabels(false), s.legacyLabels)},
		{"/api/prom/label/{name}/values", "labels", readRoute(s, "labels", s.decodeLabels(false), s.legacyLabels)},
		{"/api/prom/series", "series", readRoute(s, "series", s.decodeSeries, s.series)},
		{"/api/prom/tail", "tail", t(s.legacyTail)},
	}
	if s.d.Ruler != nil {
		routes = append(routes, route{"/ruler/backfill", "ruler_backfill", s.rulerBackfill})
		for i := range routes {
			switch routes[i].name {
			case "rules":
				routes[i].h = s.promRules
			case "alerts":
				routes[i].h = s.promAlerts
			}
		}
	}
	if s.d.Deletes != nil { // as in Loki, absent unless deletion is on
		routes = append(routes,
			route{"/loki/api/v1/delete", "delete", s.deleteRequests},
			route{"/loki/api/v1/cache/generation_numbers", "generation_numbers", s.generationNumbers})
	}
	return routes
}

// Handler returns the routed, instrumented handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range s.routes() {
		mux.Handle(r.pattern, s.instrument(r.name, r.h))
	}
	mux.Handle("/metrics", s.d.Metrics.Handler())
	if s.d.Peers != nil {
		mux.Handle("/vloki/peers/", s.d.Peers)
	}
	mux.Handle("/", s.instrument("not_found", func(w http.ResponseWriter, r *http.Request) {
		writeText(w, http.StatusNotFound, "404 page not found\n")
	}))
	if s.d.Ruler == nil {
		return mux
	}
	// The YAML rules API is routed as Loki's gorilla/mux routes it, on
	// the decoded path; Go's ServeMux would keep %2F in one segment.
	rulesConfig := s.instrument("rules_config", s.rulesConfig)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isRulesConfigPath(r.URL.Path) {
			rulesConfig.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}
