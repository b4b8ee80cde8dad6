// Package config holds vloki's settings: defaults, an optional YAML file and
// command-line flags, in that order of precedence (flags win).
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	promconfig "github.com/prometheus/prometheus/config"
	"gopkg.in/yaml.v3"

	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/write/otlp"
)

// Config is the whole of vloki's configuration.
type Config struct {
	Server  Server  `yaml:"server"`
	Backend Backend `yaml:"backend"`
	Storage Storage `yaml:"storage"`
	Auth    Auth    `yaml:"auth"`
	Limits  Limits  `yaml:"limits"`
	// RuntimeConfig overrides limits per tenant, reloaded while running.
	RuntimeConfig RuntimeConfig `yaml:"runtime_config"`
	Tail          Tail          `yaml:"tail"`
	// Frontend coalesces identical queries and caches answers.
	Frontend Frontend `yaml:"frontend"`
	// Ingester holds the Loki ingester settings label answers follow.
	Ingester Ingester `yaml:"ingester"`
	// QueryScheduler bounds the queries that run at once.
	QueryScheduler QueryScheduler `yaml:"query_scheduler"`
	Memory         Memory         `yaml:"memory"`
	Patterns       Patterns       `yaml:"patterns"`
	Deletion       Deletion       `yaml:"deletion"`
	Ruler          Ruler          `yaml:"ruler"`
	Log            Log            `yaml:"log"`
	// Demo feeds a few services' logs in continuously.
	Demo bool `yaml:"demo"`
}

// Server is the HTTP listener.
type Server struct {
	HTTPListenAddress string `yaml:"http_listen_address"`
	HTTPListenPort    int    `yaml:"http_listen_port"`
	// PprofListenAddress, when set, serves Go's /debug/pprof there, apart
	// from the API (off by default).
	PprofListenAddress string `yaml:"pprof_listen_address"`
}

// Backend selects VictoriaLogs. An empty URL runs the embedded engine.
type Backend struct {
	URL string `yaml:"url"`
	// InsertURL, when set, receives pushes (a cluster's vlinsert) while
	// URL serves queries, metadata and tails (its vlselect).
	InsertURL string `yaml:"insert_url"`
	// SelectURL, when set, serves queries, metadata and tails (a
	// cluster's vlselect) while URL (or InsertURL) receives pushes. Each
	// URL may list replicas, comma-separated, taken in turn.
	SelectURL string        `yaml:"select_url"`
	Timeout   time.Duration `yaml:"timeout"`
	// ForeignData serves rows other agents wrote into VictoriaLogs: field
	// names read Loki-style, rows without _msg get a rebuilt line, and
	// service_name and detected_level are derived at query time.
	ForeignData bool `yaml:"foreign_data"`
	// DefaultMsgValue is VictoriaLogs' -defaultMsgValue: the _msg of a
	// row stored without one.
	DefaultMsgValue string `yaml:"default_msg_value"`
	// SoleWriter says vloki is the only writer into VictoriaLogs, so what
	// it acknowledged is all there is: label names and values come from
	// memory (package streamindex) and range queries reuse steps up to
	// now, each push dropping the steps it touches. "auto" (with the
	// embedded engine), "on" (an external VictoriaLogs nobody else writes
	// into, served by one vloki) or "off".
	SoleWriter string `yaml:"sole_writer"`
	// SoleWriterPeers, with SoleWriter on, are the vloki replicas that
	// together are the only writers into an external VictoriaLogs (this
	// one may be listed too): each tells the others of every push before
	// acknowledging it, and trusts what it knows only while every other
	// answers (package peers). SoleWriterSelf is this replica's URL as
	// the others reach it; SoleWriterLease how long an answer is trusted.
	SoleWriterPeers []string      `yaml:"sole_writer_peers"`
	SoleWriterSelf  string        `yaml:"sole_writer_self"`
	SoleWriterLease time.Duration `yaml:"sole_writer_lease"`
}

// Ingester holds Loki's ingester settings that shape label names, values
// and detected labels over recent ranges when vloki is the sole writer
// (docs/loki-label-index.md): vloki answers as a Loki with these settings
// would, from the wall times of the pushes it acknowledged.
type Ingester struct {
	// ChunkIdlePeriod is Loki's chunk_idle_period: a stream is in memory
	// (listed for any range) until idle this long; 0 turns the rule off
	// (label answers hold the whole UTC days the range touches).
	ChunkIdlePeriod time.Duration `yaml:"chunk_idle_period"`
	// FlushCheckPeriod is Loki's flush_check_period: an idle stream
	// flushes at the next check.
	FlushCheckPeriod time.Duration `yaml:"flush_check_period"`
	// QueryStoreMaxLookBackPeriod is Loki's
	// query_store_max_look_back_period: 0 is Loki's single-binary
	// default (LookBack), negative asks memory for every range.
	QueryStoreMaxLookBackPeriod LookBackPeriod `yaml:"query_store_max_look_back_period"`
}

// LookBackPeriod is a duration that also takes Loki's -1 (no unit), in
// YAML and as a flag.
type LookBackPeriod time.Duration

func (v *LookBackPeriod) String() string { return time.Duration(*v).String() }

// Set reads a flag value.
func (v *LookBackPeriod) Set(s string) error {
	if s == "-1" {
		*v = -1
		return nil
	}
	d, err := time.ParseDuration(s)
	*v = LookBackPeriod(d)
	return err
}

// UnmarshalYAML reads -1 or a duration.
func (v *LookBackPeriod) UnmarshalYAML(n *yaml.Node) error { return v.Set(n.Value) }

// lokiMaxChunkAge is Loki's max_chunk_age default, part of its derived
// look-back.
const lokiMaxChunkAge = 2 * time.Hour

// DefaultLookBack is the look-back a Loki single binary derives when
// query_store_max_look_back_period is 0: max_chunk_age + 16m (index
// upload) + 5m + 3 × 5m (index cache validity, resyncs) + 5m = 2h41m.
const DefaultLookBack = lokiMaxChunkAge + 16*time.Minute + 5*time.Minute + 3*5*time.Minute + 5*time.Minute

// LookBack is the look-back Loki runs with: the configured one, or its
// derived default for 0.
func (i Ingester) LookBack() time.Duration {
	if i.QueryStoreMaxLookBackPeriod == 0 {
		return DefaultLookBack
	}
	return time.Duration(i.QueryStoreMaxLookBackPeriod)
}

// Storage configures the embedded engine.
type Storage struct {
	Path      string `yaml:"path"`
	Retention string `yaml:"retention"`
	// FlushInterval is how often the embedded engine writes in-memory
	// rows to disk (VictoriaLogs' -inmemoryDataFlushInterval, at least
	// 1s): a kill -9 or power loss loses at most the rows acknowledged in
	// the last 2 × FlushInterval + 1s (VictoriaLogs buffers rows for a
	// second, then keeps a part in memory until its deadline passes and
	// its flusher next ticks). A SIGTERM loses nothing.
	FlushInterval time.Duration `yaml:"flush_interval"`
}

// Auth configures tenants.
type Auth struct {
	Enabled     bool   `yaml:"enabled"`
	TenantsFile string `yaml:"tenants_file"`
}

// Limits are the limits block: the defaults of the per-tenant limits
// (package limits, Loki's limits_config names; a tenant's overrides come
// from the runtime configuration file), and the process-wide ones.
type Limits struct {
	limits.Limits `yaml:",inline"`
	// MaxPushBodyBytes bounds a decompressed push body.
	MaxPushBodyBytes int64 `yaml:"max_push_body_bytes"`
	// OTLPConfig is Loki's otlp_config: what becomes of OpenTelemetry
	// resource, scope and log attributes (YAML only; for every tenant).
	OTLPConfig otlp.Config `yaml:"otlp_config"`
}

// RuntimeConfig is Loki's runtime_config: a file of per-tenant limits
// (overrides:), read again every Period while vloki runs.
type RuntimeConfig struct {
	File   string        `yaml:"file"`
	Period time.Duration `yaml:"period"`
}

// Frontend configures the query frontend (package frontend).
type Frontend struct {
	// CacheResults caches answers over ranges older than MaxCacheFreshness.
	CacheResults bool `yaml:"cache_results"`
	// ResultsCacheMaxBytes bounds the in-process results cache.
	ResultsCacheMaxBytes int64 `yaml:"results_cache_max_bytes"`
	// ExtentsMaxBytes bounds the in-process store of range queries'
	// evaluated steps, used when CacheResults is on (0: no extents).
	ExtentsMaxBytes int64 `yaml:"extents_max_bytes"`
	// SamplesCacheSize bounds the in-process store of the samples range
	// aggregations extract from frozen data, used when CacheResults is on
	// (0: none).
	SamplesCacheSize int64 `yaml:"samples_cache_size"`
	// RecentLogsCacheSize bounds the in-process store of the frozen
	// spans of log queries' answers (0: none).
	RecentLogsCacheSize int64 `yaml:"recent_logs_cache_size"`
	// ResultsCacheBackend is memory, memcached or redis.
	ResultsCacheBackend string `yaml:"results_cache_backend"`
	// MemcachedAddresses are host:port of the memcached servers.
	MemcachedAddresses []string `yaml:"memcached_addresses"`
	// RedisAddress is host:port of the Redis server.
	RedisAddress string `yaml:"redis_address"`
	// ResultsCacheTTL is how long a shared cache keeps an answer.
	ResultsCacheTTL time.Duration `yaml:"results_cache_ttl"`
	// MaxCacheFreshness is Loki's max_cache_freshness_per_query.
	MaxCacheFreshness time.Duration `yaml:"max_cache_freshness"`
	// Coalesce makes identical in-flight queries share one execution.
	Coalesce bool `yaml:"coalesce"`
	// StreamIndexMaxStreams bounds the streams the index keeps.
	StreamIndexMaxStreams int `yaml:"stream_index_max_streams"`
	// StreamIndexMaxLines bounds the entries (time and line length) the
	// index keeps to sum volumes from memory; older ones are dropped first.
	StreamIndexMaxLines int `yaml:"stream_index_max_lines"`
	// NeedleIndexMaxBytes bounds the hourly filters of long words kept to
	// narrow substring searches (package needles); 0: none.
	NeedleIndexMaxBytes int `yaml:"needle_index_max_bytes"`
	// CompressResponses is Loki's frontend compress_responses: query
	// answers of at least 1,400 bytes are gzipped for clients accepting
	// gzip. Off by default, as in Loki v3.7.8 (whose later flag
	// registration resets the documented default of true to false).
	CompressResponses bool `yaml:"compress_responses"`
}

// QueryScheduler sizes the admission queue of queries (package queue).
type QueryScheduler struct {
	// MaxConcurrent is how many queries run at once (0: 4 per CPU).
	MaxConcurrent int `yaml:"max_concurrent"`
	// MaxConcurrentLong is how many of them may span more than
	// LongQuerySpan (0: half of MaxConcurrent).
	MaxConcurrentLong int `yaml:"max_concurrent_long"`
	// LongQuerySpan is the time span from which a query is long.
	LongQuerySpan time.Duration `yaml:"long_query_span"`
	// MaxOutstandingPerTenant is Loki's
	// max_outstanding_requests_per_tenant: queued queries beyond it get 429.
	MaxOutstandingPerTenant int `yaml:"max_outstanding_requests_per_tenant"`
}

// Slots resolves MaxConcurrent and MaxConcurrentLong for cpus CPUs.
func (q QueryScheduler) Slots(cpus int) (all, long int) {
	all = q.MaxConcurrent
	if all <= 0 {
		all = 4 * cpus
	}
	long = q.MaxConcurrentLong
	if long <= 0 {
		long = max(all/2, 1)
	}
	return all, long
}

// Tail configures live tails.
type Tail struct {
	// Backend says whether tails also follow VictoriaLogs' own live tail:
	// "auto" (with an external VictoriaLogs, whose rows other agents or
	// replicas may write), "on" or "off". Pushes through this vloki reach
	// tails directly either way.
	Backend string `yaml:"backend"`
}

// TailFromBackend resolves Tail.Backend.
func (c Config) TailFromBackend() bool {
	switch c.Tail.Backend {
	case "on":
		return true
	case "off":
		return false
	}
	return c.Backend.URL != "" || c.Backend.SelectURL != ""
}

// Patterns configures /loki/api/v1/patterns (Logs Drilldown's Patterns
// tab), mined at query time as Loki's pattern ingester mines at ingestion.
type Patterns struct {
	// Enabled answers patterns (Loki with pattern_ingester.enabled); off
	// answers none, as Loki's default does.
	Enabled bool `yaml:"enabled"`
	// MaxLines is how many of the newest lines of the last three hours one
	// patterns request reads and clusters (bounds its memory and time).
	MaxLines int `yaml:"max_lines"`
	// MaxLiveStreams bounds the streams mined as pushes come (vloki the
	// sole writer); a tenant beyond it is mined from storage when asked.
	MaxLiveStreams int `yaml:"max_live_streams"`
}

// Deletion serves Loki's log deletion API (/loki/api/v1/delete), as
// Loki's compactor with retention on.
type Deletion struct {
	// Mode is Loki's deletion_mode: disabled, filter-only (lines hidden
	// at query time, never deleted) or filter-and-delete (deleted from
	// storage once the cancel period has passed; VictoriaLogs v1.38+ with
	// -delete.enable).
	Mode string `yaml:"mode"`
	// CancelPeriod is Loki's delete_request_cancel_period.
	CancelPeriod time.Duration `yaml:"cancel_period"`
	// MaxInterval is Loki's delete_max_interval, the largest max_interval
	// a request may give.
	MaxInterval time.Duration `yaml:"max_interval"`
	// Dir keeps the requests, a file per tenant (empty: <storage.path>/deletes).
	Dir string `yaml:"dir"`
}

// Ruler is Loki's ruler block, as far as vloki serves it: the rules API
// over a rule store in Loki's local layout (<dir>/<tenant>/<namespace>),
// writable through the API unless read_only.
type Ruler struct {
	// EnableAPI is Loki's ruler.enable_api: the rules routes exist.
	EnableAPI bool `yaml:"enable_api"`
	// EvaluationInterval is Loki's ruler.evaluation_interval, the
	// interval of groups that set none.
	EvaluationInterval time.Duration `yaml:"evaluation_interval"`
	// EnableEvaluation evaluates the stored rules (vloki's: off, the
	// rules are only served, e.g. on a replica sharing another's rule
	// directory).
	EnableEvaluation bool `yaml:"enable_evaluation"`
	// PollInterval is Loki's ruler.poll_interval: how often the rule
	// store is re-read (API writes are loaded at once).
	PollInterval time.Duration `yaml:"poll_interval"`
	// RulePath is Loki's ruler.rule_path. vloki writes nothing there, but
	// Loki's group identity, hence each group's evaluation slot, includes
	// it: set it to Loki's value to evaluate at the same instants.
	RulePath string `yaml:"rule_path"`
	// ExternalURL is Loki's ruler.external_url ($externalURL in
	// templates).
	ExternalURL string `yaml:"external_url"`
	// ForOutageTolerance, ForGracePeriod and ResendDelay are Loki's
	// for_outage_tolerance, for_grace_period and resend_delay.
	// AlertmanagerURL is Loki's ruler.alertmanager_url: comma-separated
	// Alertmanager URLs (each its own set; user info for basic auth).
	AlertmanagerURL string `yaml:"alertmanager_url"`
	// NotificationQueueCapacity and NotificationTimeout are Loki's
	// notification_queue_capacity and notification_timeout.
	NotificationQueueCapacity int           `yaml:"notification_queue_capacity"`
	NotificationTimeout       time.Duration `yaml:"notification_timeout"`
	// ExternalLabels is Loki's ruler.external_labels: added to the labels
	// of alerts sent (where absent) and $externalLabels in templates.
	ExternalLabels map[string]string `yaml:"external_labels"`
	// DatasourceUID is Loki's ruler.datasource_uid, in alerts'
	// generatorURL.
	DatasourceUID      string        `yaml:"datasource_uid"`
	ForOutageTolerance time.Duration `yaml:"for_outage_tolerance"`
	ForGracePeriod     time.Duration `yaml:"for_grace_period"`
	ResendDelay        time.Duration `yaml:"resend_delay"`
	Storage            RulerStorage  `yaml:"storage"`
	// RemoteWrite is Loki's ruler.remote_write, with one receiver.
	RemoteWrite RulerRemoteWrite `yaml:"remote_write"`
	// WAL is Loki's ruler.wal.
	WAL RulerWAL `yaml:"wal"`
	// QueryOffset is vloki's: groups without query_offset query at each
	// slot minus it, for logs arriving late (0: at the slot, as Loki).
	QueryOffset time.Duration `yaml:"query_offset"`
	// PersistAlertState keeps each tenant's pending and firing alerts in
	// AlertStateDir (empty: <storage.path>/ruler-state), so that they
	// survive a restart (vloki's; off, they start over, as in Loki).
	PersistAlertState bool   `yaml:"persist_alert_state"`
	AlertStateDir     string `yaml:"alert_state_dir"`
	// Backfill bounds the backfill of recording rules (vloki's).
	Backfill RulerBackfill `yaml:"backfill"`
	// Lease lets one replica of several sharing the rule directory
	// evaluate the rules (vloki's).
	Lease RulerLease `yaml:"lease"`
}

// RulerBackfill bounds POST /ruler/backfill.
type RulerBackfill struct {
	// MaxSlots is the most slots one run evaluates, all groups together.
	MaxSlots int `yaml:"max_slots"`
}

// RulerLease is the evaluation lease: a file in the rule directory that
// the evaluating replica renews; the others take over once it expires.
type RulerLease struct {
	Enabled bool `yaml:"enabled"`
	// Duration is how long a lease lasts unless renewed; RenewPeriod how
	// often its holder renews it (and others try to take it).
	Duration    time.Duration `yaml:"duration"`
	RenewPeriod time.Duration `yaml:"renew_period"`
	// Holder names this replica in the lease (empty: host name and pid).
	Holder string `yaml:"holder"`
}

// RulerRemoteWrite is Loki's ruler.remote_write, where recorded samples
// go: Loki's clients map of Prometheus remote-write configurations (or
// its deprecated single client), or vloki's shorthand, one receiver URL.
type RulerRemoteWrite struct {
	Enabled bool   `yaml:"enabled"`
	URL     string `yaml:"url"`
	// Client is Loki's deprecated remote_write.client, sent as the
	// client "default" as Loki does.
	Client *promconfig.RemoteWriteConfig `yaml:"client"`
	// Clients is Loki's remote_write.clients: receivers by id.
	Clients map[string]promconfig.RemoteWriteConfig `yaml:"clients"`
	// AddOrgIDHeader is Loki's add_org_id_header: X-Scope-OrgID set to
	// the rule's tenant on each request.
	AddOrgIDHeader bool `yaml:"add_org_id_header"`
}

// ClientConfigs are the receivers by id: Loki's clients, its deprecated
// client as "default", or the URL as "default" (nil when none is set).
func (rw RulerRemoteWrite) ClientConfigs() (map[string]promconfig.RemoteWriteConfig, error) {
	switch {
	case rw.Client != nil && len(rw.Clients) > 0:
		return nil, errors.New("ruler remote write config: both 'client' and 'clients' options are defined; 'client' is deprecated, please only use 'clients'")
	case rw.URL != "" && (rw.Client != nil || len(rw.Clients) > 0):
		return nil, errors.New("ruler.remote_write: set url, or Loki's clients, not both")
	}
	clients := rw.Clients
	switch {
	case rw.Client != nil:
		clients = map[string]promconfig.RemoteWriteConfig{"default": *rw.Client}
	case rw.URL != "":
		c, err := urlClient(rw.URL)
		if err != nil {
			return nil, err
		}
		clients = map[string]promconfig.RemoteWriteConfig{"default": c}
	}
	for id, c := range clients {
		if err := c.Validate(model.UTF8Validation); err != nil {
			return nil, fmt.Errorf("invalid remote write client for tenant %q: %w", id, err)
		}
	}
	return clients, nil
}

// urlClient is Prometheus' remote-write configuration, with its
// defaults, for one URL (user info for basic auth).
func urlClient(raw string) (promconfig.RemoteWriteConfig, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return promconfig.RemoteWriteConfig{}, fmt.Errorf("ruler.remote_write.url %q: want http(s)://host/path", raw)
	}
	c := promconfig.DefaultRemoteWriteConfig
	if u.User != nil {
		pw, _ := u.User.Password()
		c.HTTPClientConfig.BasicAuth = &commoncfg.BasicAuth{Username: u.User.Username(), Password: commoncfg.Secret(pw)}
		u.User = nil
	}
	c.URL = &commoncfg.URL{URL: u}
	return c, nil
}

// RulerWAL is Loki's ruler.wal.
type RulerWAL struct {
	// Dir holds each tenant's WAL (empty: <storage.path>/ruler-wal).
	Dir string `yaml:"dir"`
}

// RulerStorage is Loki's ruler.storage with its local backend.
type RulerStorage struct {
	// Type is Loki's ruler.storage.type; vloki has only local.
	Type  string     `yaml:"type"`
	Local RulerLocal `yaml:"local"`
}

// RulerLocal is Loki's ruler.storage.local.
type RulerLocal struct {
	// Directory holds <tenant>/<namespace file> (empty:
	// <storage.path>/rules).
	Directory string `yaml:"directory"`
	// ReadOnly answers writes and single-group reads as Loki's local
	// store does ("… unsupported in rule local store"), for parity.
	ReadOnly bool `yaml:"read_only"`
}

// Memory bounds the whole process. vloki usually shares its machine (with
// VictoriaLogs, or with other services): VictoriaMetrics' default of 60%
// of the machine for caches alone is too much for such a process.
type Memory struct {
	// AllowedPercent of the machine's (or cgroup's) memory the process
	// may use: the embedded VictoriaLogs sizes its caches from it, and
	// Go's soft memory limit is set to it.
	AllowedPercent float64 `yaml:"allowed_percent"`
	// AllowedBytes, when > 0, overrides AllowedPercent.
	AllowedBytes int64 `yaml:"allowed_bytes"`
	// GCPercent is Go's GOGC for the process: the heap may grow to the
	// heap live after a collection times (1 + GCPercent/100) before the
	// next. 0 picks it: EmbeddedGCPercent on the embedded engine (its
	// long-lived data share the heap, and would count twice at Go's
	// 100), Go's own 100 on an external VictoriaLogs. A GOGC in the
	// environment wins.
	GCPercent int `yaml:"gc_percent"`
}

// EmbeddedGCPercent is the embedded engine's GOGC unless configured
// (docs/memory.md: at 50 clients on 2 M lines it took the peak from
// 660 to 500 MiB, answering a fifth fewer requests a second).
const EmbeddedGCPercent = 50

// Log configures vloki's own logs.
type Log struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// DefaultMsgValue is VictoriaLogs' default -defaultMsgValue.
const DefaultMsgValue = "missing _msg field; see https://docs.victoriametrics.com/victorialogs/keyconcepts/#message-field"

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{
		Server:        Server{HTTPListenPort: 3100},
		Backend:       Backend{Timeout: 5 * time.Minute, DefaultMsgValue: DefaultMsgValue, SoleWriter: "auto", SoleWriterLease: 2 * time.Second},
		Storage:       Storage{Path: "./data", Retention: "100y", FlushInterval: 5 * time.Second},
		Limits:        Limits{Limits: limits.Default(), MaxPushBodyBytes: 64 << 20},
		RuntimeConfig: RuntimeConfig{Period: 10 * time.Second},
		Tail:          Tail{Backend: "auto"},
		Deletion:      Deletion{Mode: "filter-and-delete", CancelPeriod: 24 * time.Hour, MaxInterval: 24 * time.Hour},
		Ruler: Ruler{EnableAPI: true, EnableEvaluation: true, EvaluationInterval: time.Minute, PollInterval: time.Minute, RulePath: "/rules",
			ForOutageTolerance: time.Hour, ForGracePeriod: 10 * time.Minute, ResendDelay: time.Minute,
			NotificationQueueCapacity: 10000, NotificationTimeout: 10 * time.Second, PersistAlertState: true,
			RemoteWrite: RulerRemoteWrite{AddOrgIDHeader: true},
			Backfill:    RulerBackfill{MaxSlots: 7 * 24 * 60}, Lease: RulerLease{Duration: 15 * time.Second, RenewPeriod: 5 * time.Second}},
		Frontend: Frontend{
			CacheResults: true, ResultsCacheMaxBytes: 64 << 20, ExtentsMaxBytes: 64 << 20, SamplesCacheSize: 64 << 20, RecentLogsCacheSize: 64 << 20, MaxCacheFreshness: 10 * time.Minute, Coalesce: true,
			ResultsCacheBackend: "memory", ResultsCacheTTL: 24 * time.Hour,
			StreamIndexMaxStreams: 100_000, StreamIndexMaxLines: 4_000_000, NeedleIndexMaxBytes: 128 << 20,
		},
		Ingester: Ingester{ChunkIdlePeriod: 30 * time.Minute, FlushCheckPeriod: 30 * time.Second},
		QueryScheduler: QueryScheduler{
			LongQuerySpan: 2 * time.Hour, MaxOutstandingPerTenant: 2048,
		},
		Memory:   Memory{AllowedPercent: 25},
		Patterns: Patterns{Enabled: true, MaxLines: 100_000, MaxLiveStreams: 10_000},
		Log:      Log{Level: "info", Format: "logfmt"},
	}
}

// ListenAddr is host:port for the HTTP server.
func (c Config) ListenAddr() string {
	return fmt.Sprintf("%s:%d", c.Server.HTTPListenAddress, c.Server.HTTPListenPort)
}

// Load reads args (without the program name). It returns flag.ErrHelp when
// -help was asked for.
func Load(args []string, out io.Writer) (Config, error) {
	cfg := Default()
	fs := flag.NewFlagSet("vloki", flag.ContinueOnError)
	fs.SetOutput(out)
	file := fs.String("config.file", "", "YAML configuration file; flags override it")
	bindFlags(fs, &cfg)
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *file == "" {
		return cfg, cfg.Validate()
	}
	explicit := map[string]string{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = f.Value.String() })
	cfg = Default()
	if err := loadFile(*file, &cfg); err != nil {
		return cfg, err
	}
	// Re-apply the flags given explicitly so they win over the file.
	for name, v := range explicit {
		if err := fs.Set(name, v); err != nil {
			return cfg, err
		}
	}
	return cfg, cfg.Validate()
}

func loadFile(path string, cfg *Config) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	return nil
}

// Validate rejects settings vloki cannot run with.
func (c Config) Validate() error {
	switch {
	case c.Server.HTTPListenPort < 0 || c.Server.HTTPListenPort > 65535:
		return fmt.Errorf("server.http_listen_port %d out of range", c.Server.HTTPListenPort)
	case c.Deletion.Mode != "disabled" && c.Deletion.Mode != "filter-only" && c.Deletion.Mode != "filter-and-delete":
		return fmt.Errorf("deletion.mode %q: want disabled, filter-only or filter-and-delete", c.Deletion.Mode)
	case c.Ruler.EvaluationInterval <= 0:
		return errors.New("ruler.evaluation_interval must be > 0")
	case c.Ruler.PollInterval <= 0:
		return errors.New("ruler.poll_interval must be > 0")
	case c.Ruler.QueryOffset < 0:
		return errors.New("ruler.query_offset must be >= 0")
	case c.Ruler.Storage.Type != "" && c.Ruler.Storage.Type != "local":
		return fmt.Errorf("ruler.storage.type %q: vloki keeps rules in Loki's local layout only (local)", c.Ruler.Storage.Type)
	case c.Ruler.Backfill.MaxSlots <= 0:
		return errors.New("ruler.backfill.max_slots must be > 0")
	case c.Ruler.Lease.Enabled && (c.Ruler.Lease.RenewPeriod <= 0 || c.Ruler.Lease.Duration < 2*c.Ruler.Lease.RenewPeriod):
		return errors.New("ruler.lease.renew_period must be > 0 and ruler.lease.duration at least twice it")
	case c.Deletion.CancelPeriod < 0 || c.Deletion.MaxInterval < 0:
		return errors.New("deletion.cancel_period and deletion.max_interval must be >= 0")
	case c.Storage.FlushInterval < time.Second:
		return errors.New("storage.flush_interval must be at least 1s")
	case c.Frontend.ResultsCacheBackend != "memory" && c.Frontend.ResultsCacheBackend != "memcached" && c.Frontend.ResultsCacheBackend != "redis":
		return fmt.Errorf("frontend.results_cache_backend %q: want memory, memcached or redis", c.Frontend.ResultsCacheBackend)
	case c.Frontend.ResultsCacheBackend == "memcached" && len(c.Frontend.MemcachedAddresses) == 0:
		return errors.New("frontend.memcached_addresses must be set for the memcached results cache")
	case c.Frontend.ResultsCacheBackend == "redis" && c.Frontend.RedisAddress == "":
		return errors.New("frontend.redis_address must be set for the redis results cache")
	case c.Tail.Backend != "auto" && c.Tail.Backend != "on" && c.Tail.Backend != "off":
		return fmt.Errorf("tail.backend %q: want auto, on or off", c.Tail.Backend)
	case c.Backend.SoleWriter != "auto" && c.Backend.SoleWriter != "on" && c.Backend.SoleWriter != "off":
		return fmt.Errorf("backend.sole_writer %q: want auto, on or off", c.Backend.SoleWriter)
	case len(c.Backend.SoleWriterPeers) > 0 && (c.Backend.SoleWriter != "on" || c.Backend.SoleWriterSelf == "" ||
		c.Backend.URL == "" && c.Backend.InsertURL == "" || c.Backend.ForeignData):
		return errors.New("backend.sole_writer_peers needs backend.sole_writer on, backend.sole_writer_self, an external VictoriaLogs (backend.url) and no foreign data")
	case c.Backend.SoleWriterLease <= 0:
		return errors.New("backend.sole_writer_lease must be > 0")
	case c.RuntimeConfig.File != "" && c.RuntimeConfig.Period <= 0:
		return errors.New("runtime_config.period must be > 0")
	case c.Memory.AllowedPercent < 1 || c.Memory.AllowedPercent > 100:
		return fmt.Errorf("memory.allowed_percent %g: want 1 to 100", c.Memory.AllowedPercent)
	case c.Memory.AllowedBytes < 0:
		return errors.New("memory.allowed_bytes must be >= 0")
	case c.Memory.GCPercent < 0:
		return errors.New("memory.gc_percent must be >= 0 (0: picked by backend)")
	case c.Ingester.ChunkIdlePeriod < 0 || c.Ingester.FlushCheckPeriod < 0:
		return errors.New("ingester.chunk_idle_period and ingester.flush_check_period must be >= 0")
	case c.Ingester.QueryStoreMaxLookBackPeriod > 0 && time.Duration(c.Ingester.QueryStoreMaxLookBackPeriod) < DefaultLookBack:
		// Loki's check and text (pkg/loki/modules.go calculateMaxLookBack).
		return fmt.Errorf("the configured query_store_max_look_back_period of '%v' is less than the calculated default of '%v' "+
			"which is calculated based on the max_chunk_age + 15 minute boltdb-shipper interval + 15 min additional buffer.  Increase this value"+
			"greater than the default or remove it from the configuration to use the default", time.Duration(c.Ingester.QueryStoreMaxLookBackPeriod), DefaultLookBack)
	}
	if err := c.Limits.Validate(); err != nil {
		return fmt.Errorf("limits.%w", err)
	}
	return c.validateRemoteWrite()
}

// validateRemoteWrite: receivers as Loki checks them, one at least when
// remote write is on.
func (c Config) validateRemoteWrite() error {
	rw := c.Ruler.RemoteWrite
	clients, err := rw.ClientConfigs()
	if err != nil {
		return err
	}
	if rw.Enabled && len(clients) == 0 {
		return errors.New("ruler.remote_write.enabled needs ruler.remote_write.url or ruler.remote_write.clients")
	}
	return nil
}
