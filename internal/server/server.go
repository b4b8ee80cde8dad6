// Package server assembles a running vloki from its configuration: the
// backend (external or embedded), tenants, engine and HTTP API.
package server

import (
	"path/filepath"

	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/VictoriaMetrics/VictoriaMetrics/lib/flagutil"

	"github.com/vloki/vloki/internal/acked/acks"
	"github.com/vloki/vloki/internal/acked/patterns"
	"github.com/vloki/vloki/internal/acked/peers"
	"github.com/vloki/vloki/internal/acked/readyourwrites"
	"github.com/vloki/vloki/internal/acked/streamindex"
	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/api"
	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/live/tail"
	"github.com/vloki/vloki/internal/live/tailhub"
	"github.com/vloki/vloki/internal/live/tailshare"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/frontend"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/read/querier"
	"github.com/vloki/vloki/internal/read/queue"
	"github.com/vloki/vloki/internal/read/samples"
	"github.com/vloki/vloki/internal/ruler/eval"
	"github.com/vloki/vloki/internal/ruler/lease"
	"github.com/vloki/vloki/internal/ruler/rulestore"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/backend/embedded"
	"github.com/vloki/vloki/internal/storage/otheragents"
	"github.com/vloki/vloki/internal/write/dedup"
	"github.com/vloki/vloki/internal/write/deletion"
	"github.com/vloki/vloki/internal/write/ingest"
)

// App is an assembled vloki.
type App struct {
	handler  http.Handler
	api      *api.Server
	ingester *ingest.Writer
	name     string
	close    func()
	// streams is the stream index (nil when off); streamsFile, when set,
	// is where Close saves it and New restored it from.
	streams     *streamindex.Index
	streamsFile string
	// needles is the needle index (nil when off), saved beside the stream
	// index.
	needles *needleSource
}

// New builds vloki from cfg, starting the embedded engine when no backend
// URL is configured.
func New(cfg config.Config, log *slog.Logger) (*App, error) {
	if err := LimitMemory(cfg.Memory, cfg.Backend.URL == "" && cfg.Backend.SelectURL == "", log); err != nil {
		return nil, err
	}
	m := metrics.New()
	opts := backend.Options{Timeout: cfg.Backend.Timeout, Observe: m.ObserveBackend}
	if base := cmp.Or(cfg.Backend.URL, cfg.Backend.SelectURL); base != "" {
		if cfg.Backend.URL == "" && cfg.Backend.InsertURL == "" {
			return nil, fmt.Errorf("-backend.select-url needs -backend.url or -backend.insert-url for pushes")
		}
		opts.InsertURL, opts.SelectURL = cfg.Backend.InsertURL, cfg.Backend.SelectURL
		c, err := backend.New(base, backend.NewHTTPTransport(), opts)
		if err != nil {
			return nil, err
		}
		return Assemble(cfg, log, m, c, c.BaseURL(), func() {})
	}
	if err := os.MkdirAll(cfg.Storage.Path, 0o755); err != nil {
		return nil, err
	}
	eng, err := embedded.Start(embedded.Config{
		DataPath: cfg.Storage.Path, Retention: cfg.Storage.Retention, LogLevel: "WARN",
		MaxRequestSize: cfg.Limits.MaxPushBodyBytes, FlushInterval: cfg.Storage.FlushInterval,
	})
	if err != nil {
		return nil, err
	}
	opts.Direct = eng
	c, err := backend.New("http://embedded", eng.RoundTripper(), opts)
	if err != nil {
		eng.Stop()
		return nil, err
	}
	if cfg.Backend.SoleWriter == "auto" {
		cfg.Backend.SoleWriter = "on" // the embedded engine has no other writer
	}
	app, err := Assemble(cfg, log, m, c, "embedded ("+cfg.Storage.Path+")", eng.Stop)
	if err != nil {
		eng.Stop()
		return nil, err
	}
	if err := app.restoreStreams(filepath.Join(cfg.Storage.Path, streamIndexFile)); err != nil {
		app.Close()
		return nil, err
	}
	return app, nil
}

// streamIndexFile, in the embedded engine's directory, holds the stream
// index between a clean shutdown and the next start.
const streamIndexFile = "vloki-stream-index.json"

// needleIndexFile, beside it, holds the needle index.
const needleIndexFile = "vloki-needle-index.gob"

// Assemble builds vloki on an existing backend client; closeFn runs on Close.
func Assemble(cfg config.Config, log *slog.Logger, m *metrics.Metrics, c *backend.Client, name string, closeFn func()) (*App, error) {
	return AssembleWith(cfg, log, m, c, name, closeFn, Options{})
}

// Options are what a test sets besides the configuration.
type Options struct {
	// Clock is the wall clock the stream index reads push and request
	// times from (time.Now when nil), so a test replays recorded times.
	Clock func() time.Time
}

// AssembleWith is Assemble with options.
func AssembleWith(cfg config.Config, log *slog.Logger, m *metrics.Metrics, c *backend.Client, name string, closeFn func(), opts Options) (*App, error) {
	resolver := &tenant.Resolver{AuthEnabled: cfg.Auth.Enabled}
	if cfg.Auth.TenantsFile != "" {
		mapping, err := tenant.LoadMapping(cfg.Auth.TenantsFile)
		if err != nil {
			return nil, err
		}
		resolver.Mapping = mapping
	}
	overrides := limits.NewOverrides(cfg.Limits.Limits)
	otlpConfig := cfg.Limits.OTLPConfig
	if err := otlpConfig.Compile(); err != nil {
		return nil, fmt.Errorf("limits.otlp_config: %w", err)
	}
	var retention flagutil.RetentionDuration
	if err := retention.Set(cfg.Storage.Retention); err != nil {
		return nil, fmt.Errorf("storage.retention: %w", err)
	}
	group := newPeers(cfg, log)
	ledger, history := newLedger(cfg, group)
	tails, visible := tailhub.New(), readyourwrites.New(c.Flush, ledger)
	front := newFrontend(cfg.Frontend, m, log, visible.Wait, ledger, history, retention.Duration())
	// Answers cached under a tenant's old limits must not be served.
	stopRuntime, err := startRuntimeConfig(cfg.RuntimeConfig, overrides, resolver.Map, front.Invalidate, log, m)
	if err != nil {
		return nil, err
	}
	w := &ingest.Writer{Backend: c, Limits: overrides, Rate: ingest.NewRateLimiter(overrides), Acks: ledger}
	streams := newStreamIndex(cfg, c, m, retention.Duration(), opts.Clock, group)
	if streams != nil {
		w.Dedup = &dedup.Deduper{Newest: streams.Newest, Held: streams.HeldAt, Wait: visible.Wait,
			Lookup: func(ctx context.Context, t tenant.ID, ls lokidata.Labels, from, to int64, fn func(lokidata.Entry)) error {
				return logs.StoredEntries(ctx, c, t, ls, from, to, fn)
			}}
		w.Newest = streams.Newest
	}
	var livePatterns *patterns.Live[tenant.ID]
	if streams != nil && cfg.Patterns.Enabled {
		livePatterns = patterns.NewLive[tenant.ID](cfg.Patterns.MaxLiveStreams, nil)
	}
	ledger.Subscribe(pushSubscribers(tails, front, m, streams, livePatterns)...)
	stopPeers := startPeers(group, w, c, ledger, front, streams, livePatterns)
	if group != nil {
		m.RegisterPeers(group.Trusted, group.Gaps)
	}
	eng := engine.New(c, overrides, foreignConfig(cfg))
	deletes, stopDeletes, err := newDeletes(cfg, c, log, deletionEffects(front, streams, livePatterns, group))
	if err != nil {
		stopRuntime()
		return nil, err
	}
	if deletes != nil {
		eng = eng.WithHidden(deletes.Store.Hidden)
	}
	var indexed metric.Indexed
	var needles *needleSource
	if streams != nil {
		indexed = streams
		eng = eng.WithLineKinds(streams.LineKinds).WithIndex(streams)
		if needles = newNeedles(cfg.Frontend, streams, group, m); needles != nil {
			ledger.Subscribe(acks.Subscriber{Writing: needles.writing})
			eng = eng.WithNeedles(needles)
		}
	}
	front.Over(eng, newExtents(cfg.Frontend, m, history), newFrozenSamples(cfg.Frontend, m, history), indexed,
		newRecentLogs(cfg.Frontend, m))
	queue, backendTails := newQueue(cfg.QueryScheduler), tailshare.New(c)
	m.RegisterRuntime(func() metrics.RuntimeFigures {
		running, waiting := queue.Stats()
		return metrics.RuntimeFigures{QueriesRunning: running, QueriesWaiting: waiting,
			LiveTails: tails.Subscribers(), BackendTails: backendTails.Active(), BackendUnreachable: c.Unreachable()}
	})
	ruler, stopRuler, err := newRuler(cfg, log, m, eng, resolver.Map, visible.Wait)
	if err != nil {
		stopDeletes()
		stopRuntime()
		return nil, err
	}
	srv := api.New(api.Deps{
		Engine: eng, Tenants: resolver, Metrics: m, Log: log, Ingester: w,
		Querier: querier.New(querier.Config{Engine: eng, Frontend: front, Storage: c, Streams: streams, Metrics: m,
			Patterns: querier.Patterns{Enabled: cfg.Patterns.Enabled, MaxLines: cfg.Patterns.MaxLines, Live: livePatterns}}),
		Tail: tail.New(tail.Config{Engine: eng, Storage: c, Pushes: tails, FromStorage: cfg.TailFromBackend(),
			StorageTails: backendTails, Visibility: visible, History: front.Logs}),
		Visibility: visible, Frontend: front,
		Queue: queue, LongQuerySpan: cfg.QueryScheduler.LongQuerySpan, CompressResponses: cfg.Frontend.CompressResponses,
		MaxPushBodyBytes: cfg.Limits.MaxPushBodyBytes,
		OTLP:             &otlpConfig,
		Limits:           overrides,
		Deletes:          deletes,
		Ruler:            ruler,
		Peers:            peersHandler(group),
		Ready: func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := c.Values(ctx, tenant.ID{}, backend.StreamFieldNames, backend.MetadataRequest{Query: "*", Start: 1, End: 1})
			return err
		},
	})
	closeAll := func() {
		stopPeers()
		stopRuler()
		stopDeletes()
		stopRuntime()
		closeFn()
	}
	return &App{handler: srv.Handler(), api: srv, ingester: w, name: name, close: closeAll, streams: streams, needles: needles}, nil
}

// newDeletes serves Loki's delete API from the requests kept in
// deletion.dir and, in filter-and-delete mode, deletes their rows from
// storage once their cancel period has passed (stop ends that).
func newDeletes(cfg config.Config, c *backend.Client, log *slog.Logger, fx effects) (*deletion.Service, func(), error) {
	dir := cfg.Deletion.Dir
	if dir == "" {
		dir = filepath.Join(cfg.Storage.Path, "deletes")
	}
	store, err := deletion.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	svc := &deletion.Service{Store: store, Mode: deletion.Mode(cfg.Deletion.Mode), CancelPeriod: cfg.Deletion.CancelPeriod,
		MaxInterval: cfg.Deletion.MaxInterval, CanDelete: c.CanDelete, Changed: fx.changed, Now: time.Now}
	if svc.Mode != deletion.FilterAndDelete {
		return svc, func() {}, nil
	}
	p := &deletion.Processor{Store: store, Backend: c, Delay: cfg.Deletion.CancelPeriod, Log: log, Now: time.Now,
		Processed: fx.processed}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx, processInterval(cfg.Deletion.CancelPeriod)) }()
	return svc, func() { cancel(); <-done }, nil
}

// newRuler serves Loki's rules API from the rule store and evaluates its
// rules (nil when ruler.enable_api is off); stop ends the evaluations.
func newRuler(cfg config.Config, log *slog.Logger, m *metrics.Metrics, eng *engine.Engine, tenants func(string) tenant.ID,
	wait func(context.Context, tenant.ID) error) (ruler *api.Ruler, stop func(), err error) {
	stop = func() {}
	if !cfg.Ruler.EnableAPI {
		return nil, stop, nil
	}
	dir := cfg.Ruler.Storage.Local.Directory
	if dir == "" {
		dir = filepath.Join(cfg.Storage.Path, "rules")
	}
	store, err := rulestore.Open(dir, cfg.Ruler.Storage.Local.ReadOnly, log)
	if err != nil {
		return nil, stop, err
	}
	store.OnBadFile = func(string, string, error) { m.ObserveRuleFileError() }
	r := cfg.Ruler
	rw, err := remoteWrite(cfg)
	if err != nil {
		return nil, stop, err
	}
	opts := eval.Options{Store: store, Engine: eng, Tenant: tenants, Wait: wait, RulePath: r.RulePath,
		EvaluationInterval: r.EvaluationInterval, PollInterval: r.PollInterval, ExternalURL: r.ExternalURL,
		OutageTolerance: r.ForOutageTolerance, ForGracePeriod: r.ForGracePeriod, ResendDelay: r.ResendDelay, Log: log,
		Registerer: m.Registerer(), Alerting: eval.Alerting{AlertmanagerURL: r.AlertmanagerURL,
			QueueCapacity: r.NotificationQueueCapacity, Timeout: r.NotificationTimeout, DatasourceUID: r.DatasourceUID, ExternalLabels: r.ExternalLabels},
		RemoteWrite: rw, QueryOffset: r.QueryOffset, AlertStateDir: alertStateDir(cfg)}
	ruler = &api.Ruler{Store: store, EvaluationInterval: r.EvaluationInterval, Backfiller: eval.NewBackfiller(opts, r.Backfill.MaxSlots)}
	if !r.EnableEvaluation {
		return ruler, stop, nil
	}
	ev := eval.New(opts)
	if err := ev.Check(); err != nil {
		return nil, stop, err
	}
	store.OnChange = ev.Changed
	ruler.Evaluator = ev
	if !r.Lease.Enabled {
		ev.Start()
		return ruler, ev.Stop, nil
	}
	// Replicas sharing the rule directory: the lease's holder evaluates.
	l := lease.New(lease.Options{Path: filepath.Join(store.Dir(), lease.FileName), Holder: cmp.Or(r.Lease.Holder, lease.DefaultHolder()),
		Duration: r.Lease.Duration, RenewPeriod: r.Lease.RenewPeriod, OnAcquire: ev.Start, OnLose: ev.Stop, Log: log,
		Registerer: m.Registerer()})
	l.Start()
	return ruler, func() { l.Stop(); ev.Stop() }, nil
}

// remoteWrite is where recorded samples go (nowhere unless enabled):
// Loki's clients, vloki's URL being the client "default".
func remoteWrite(cfg config.Config) (eval.RemoteWrite, error) {
	rw := cfg.Ruler.RemoteWrite
	if !rw.Enabled {
		return eval.RemoteWrite{}, nil
	}
	clients, err := rw.ClientConfigs()
	if err != nil {
		return eval.RemoteWrite{}, err
	}
	dir := cfg.Ruler.WAL.Dir
	if dir == "" {
		dir = filepath.Join(cfg.Storage.Path, "ruler-wal")
	}
	return eval.RemoteWrite{Clients: clients, Dir: dir, NoOrgIDHeader: !rw.AddOrgIDHeader}, nil
}

// alertStateDir is where alerts are kept across restarts (empty: not
// kept).
func alertStateDir(cfg config.Config) string {
	switch {
	case !cfg.Ruler.PersistAlertState:
		return ""
	case cfg.Ruler.AlertStateDir != "":
		return cfg.Ruler.AlertStateDir
	}
	return filepath.Join(cfg.Storage.Path, "ruler-state")
}

// processInterval is how often due delete requests are looked for: a
// tenth of the cancel period, between a second and a minute.
func processInterval(cancelPeriod time.Duration) time.Duration {
	return min(max(cancelPeriod/10, time.Second), time.Minute)
}

// startRuntimeConfig keeps overrides as Loki's runtime configuration
// file says, when one is set; changed is told of every tenant whose
// limits a reload changed. stop ends the reloads.
func startRuntimeConfig(rc config.RuntimeConfig, overrides *limits.Overrides, tenantOf func(string) tenant.ID,
	changed func(tenant.ID), log *slog.Logger, m *metrics.Metrics) (stop func(), err error) {
	if rc.File == "" {
		return func() {}, nil
	}
	r, err := limits.StartReloader(limits.ReloadOptions{File: rc.File, Period: rc.Period, Overrides: overrides,
		TenantOf: tenantOf, Changed: changed, Log: log, Registerer: m.Registerer()})
	if err != nil {
		return nil, err
	}
	return r.Stop, nil
}

// Handler is the HTTP API.
func (a *App) Handler() http.Handler { return a.handler }

// Ingester writes validated pushes, for the demo feeder.
func (a *App) Ingester() *ingest.Writer { return a.ingester }

// BackendName says which VictoriaLogs serves this vloki.
func (a *App) BackendName() string { return a.name }

// BeginShutdown ends live tails and makes /ready say not ready.
func (a *App) BeginShutdown(ctx context.Context) { a.api.BeginShutdown(ctx) }

// Close lets pushes in progress finish and refuses further ones, stops
// the embedded engine, flushing its storage, and saves the stream index
// and the needle index.
func (a *App) Close() {
	a.ingester.Drain()
	a.close()
	if a.streams == nil || a.streamsFile == "" {
		return
	}
	generation := time.Now().UnixNano()
	if err := a.streams.Save(a.streamsFile, generation); err != nil {
		slog.Error("saving the stream index", "file", a.streamsFile, "err", err)
		return
	}
	if a.needles != nil {
		if err := a.needles.save(a.needlesFile(), generation); err != nil {
			slog.Error("saving the needle index", "file", a.needlesFile(), "err", err)
		}
	}
}

// restoreStreams loads the stream index a clean shutdown saved in file,
// and the needle index saved beside it at the same shutdown, and saves
// them there again on Close.
func (a *App) restoreStreams(file string) error {
	if a.streams == nil {
		return nil
	}
	a.streamsFile = file
	generation, err := a.streams.Load(file)
	if err != nil || a.needles == nil {
		return err
	}
	return a.needles.load(a.needlesFile(), generation)
}

// needlesFile is where the needle index is saved: beside the stream index.
func (a *App) needlesFile() string {
	return filepath.Join(filepath.Dir(a.streamsFile), needleIndexFile)
}

// foreignConfig is how to read data other agents wrote, nil unless
// configured (the engine derives service_name and detected_level per
// tenant, as its pushes would have had them).
func foreignConfig(cfg config.Config) *otheragents.Config {
	if !cfg.Backend.ForeignData {
		return nil
	}
	return &otheragents.Config{MissingMsg: cfg.Backend.DefaultMsgValue}
}

// newStreamIndex builds the stream index when it is on and no foreign
// data is served (rows other agents write are not in it).
func newStreamIndex(cfg config.Config, c *backend.Client, m *metrics.Metrics, retention time.Duration, clock func() time.Time,
	group *peers.Group) *streamindex.Index {
	if !soleWriter(cfg) {
		return nil
	}
	ix := streamindex.New(streamindex.Config{Complete: complete(group),
		MaxStreams: cfg.Frontend.StreamIndexMaxStreams, MaxLines: cfg.Frontend.StreamIndexMaxLines, Retention: retention,
		Horizon: streamindex.StorageHorizon(c, time.Now), Now: clock,
		Labels: streamindex.LabelRule{ChunkIdle: cfg.Ingester.ChunkIdlePeriod, FlushCheck: cfg.Ingester.FlushCheckPeriod,
			Lookback: cfg.Ingester.LookBack()},
	})
	m.RegisterStreamIndex(ix.Streams, ix.LinesKept, metric.IndexedAnswers.Load)
	return ix
}

// soleWriter: vloki is the only writer into VictoriaLogs ("auto" is
// resolved by New: on with the embedded engine). Foreign data means
// others write.
func soleWriter(cfg config.Config) bool {
	return cfg.Backend.SoleWriter == "on" && !cfg.Backend.ForeignData
}

// newQueue sizes the query admission queue for this machine.
func newQueue(c config.QueryScheduler) *queue.Queue {
	all, long := c.Slots(runtime.GOMAXPROCS(0))
	return queue.New(queue.Config{MaxConcurrent: all, MaxLong: long, MaxOutstandingPerTenant: c.MaxOutstandingPerTenant})
}

// newLedger builds the ledger of acknowledged pushes. With vloki the only
// writer it keeps each tenant's recent pushes (history, the same ledger):
// their numbers and oldest entries then say everything that changed;
// otherwise history is nil and only each tenant's last acknowledgement is
// read.
func newLedger(cfg config.Config, group *peers.Group) (ledger, history *acks.Ledger) {
	if !soleWriter(cfg) {
		return acks.New(acks.Config{}), nil
	}
	ledger = acks.New(acks.Config{Keep: acks.Keep, Complete: complete(group)})
	return ledger, ledger
}

// pushSubscribers are the consumers of each push's streams, in the order
// the ledger tells them. The ledger tells them after it recorded the
// push's acknowledgement (a read prompted by any of them waits for the
// push to be searchable) and before it numbers the push (an answer cached
// until the tenant's next push holds every push up to its number, the
// stream index's included). The live tails come first, their delivery
// being what a user watches; the frontend comes last: a push of old
// entries moves the tenant's cache generation on only once the stream
// index and the live patterns hold it, so an answer they give under the
// new generation has it.
func pushSubscribers(tails *tailhub.Hub, front *frontend.Frontend, m *metrics.Metrics, streams *streamindex.Index,
	livePatterns *patterns.Live[tenant.ID]) []acks.Subscriber {
	subs := []acks.Subscriber{
		{Acked: acks.Streams(tails.Publish)},
		{Acked: func(p acks.Push) {
			if !p.Peer { // counted by the replica that took it
				m.ObservePush(ingest.Size(p.Streams))
			}
		}},
	}
	if streams != nil {
		subs = append(subs, acks.Subscriber{Writing: streams.Writing, Acked: acks.Streams(streams.Acked), Failed: streams.Failed})
	}
	if livePatterns != nil {
		subs = append(subs, acks.Subscriber{Acked: acks.Streams(livePatterns.Push)})
	}
	return append(subs, acks.Subscriber{Acked: front.Acked})
}

// newExtents builds the store of range queries' frozen steps, nil when
// off; history, when set, is the ledger whose pushes drop kept steps.
func newExtents(c config.Frontend, m *metrics.Metrics, history *acks.Ledger) *frontend.Extents {
	if !c.CacheResults || c.ExtentsMaxBytes <= 0 {
		return nil
	}
	store := frontend.NewExtentStore[*frontend.Extent](c.ExtentsMaxBytes)
	x := &frontend.Extents{Store: store, Freshness: c.MaxCacheFreshness, Now: time.Now}
	if history != nil {
		x.Acks = history
	}
	m.RegisterExtents(func() metrics.ExtentFigures {
		f := metrics.ExtentFigures{}
		f.Bytes, f.Entries, f.Evictions = store.Usage()
		f.StepsReused, f.StepsEvaluated = x.Counts()
		return f
	})
	return x
}

// newFrozenSamples builds the store of the samples range aggregations
// extract from frozen data, nil when off; history, when set, is the
// ledger whose pushes cut kept samples (vloki the only writer).
func newFrozenSamples(c config.Frontend, m *metrics.Metrics, history *acks.Ledger) *frontend.FrozenSamples {
	if !c.CacheResults || c.SamplesCacheSize <= 0 {
		return nil
	}
	store := samples.NewStore(c.SamplesCacheSize)
	s := &frontend.FrozenSamples{Store: store, Freshness: c.MaxCacheFreshness, Now: time.Now}
	if history != nil {
		s.Acks = history
	}
	m.RegisterSamples(func() metrics.SampleFigures {
		f := metrics.SampleFigures{}
		f.Bytes, f.Entries, f.Hits, f.Fills, f.Evictions = store.Usage()
		return f
	})
	return s
}

// newRecentLogs builds the store of log queries' frozen spans.
func newRecentLogs(c config.Frontend, m *metrics.Metrics) *frontend.RecentLogs {
	if !c.CacheResults || c.RecentLogsCacheSize <= 0 || c.SamplesCacheSize <= 0 {
		return nil
	}
	r := frontend.NewRecentLogs(c.RecentLogsCacheSize)
	m.RegisterRecentLogs(r.Usage)
	return r
}

// newFrontend builds the query frontend and exposes its figures.
func newFrontend(c config.Frontend, m *metrics.Metrics, log *slog.Logger, waitVisible func(context.Context, tenant.ID) error,
	ledger, history *acks.Ledger, retention time.Duration) *frontend.Frontend {
	fc := frontend.Config{MaxCacheFreshness: c.MaxCacheFreshness, Coalesce: c.Coalesce, Gzip: c.CompressResponses, WaitVisible: waitVisible,
		LastAck: ledger.LastAck, Retention: retention}
	if history != nil {
		fc.AckSeq = history.KnownSeq
	}
	var mem *frontend.Memory
	if c.CacheResults {
		remote := frontend.RemoteConfig{TTL: c.ResultsCacheTTL, MaxItemBytes: 1 << 20, Timeout: 200 * time.Millisecond, Log: log}
		switch c.ResultsCacheBackend {
		case "memcached":
			fc.Cache = frontend.NewMemcached(c.MemcachedAddresses, remote)
		case "redis":
			fc.Cache = frontend.NewRedis(c.RedisAddress, remote)
		default:
			mem = frontend.NewMemory(c.ResultsCacheMaxBytes)
			fc.Cache = mem
		}
	}
	f := frontend.New(fc)
	m.RegisterFrontend(func() metrics.FrontendFigures {
		s := f.Snapshot()
		out := metrics.FrontendFigures{Hits: s.Hits, Misses: s.Misses, Stored: s.Stored, Coalesced: s.Coalesced,
			Invalidations: s.InvalidatedByOldPush, StepsHits: s.StepsHits}
		if mem != nil {
			out.Bytes, out.Entries, out.Evictions = mem.Usage()
		}
		return out
	})
	return f
}
