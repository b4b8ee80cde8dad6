package config

import (
	"flag"
	"strings"
)

func bindFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.Server.HTTPListenAddress, "server.http-listen-address", c.Server.HTTPListenAddress, "HTTP listen address (empty: all interfaces)")
	fs.IntVar(&c.Server.HTTPListenPort, "server.http-listen-port", c.Server.HTTPListenPort, "HTTP listen port")
	fs.StringVar(&c.Server.PprofListenAddress, "server.pprof-listen-address", c.Server.PprofListenAddress, "host:port to serve Go's /debug/pprof on, apart from the API (empty: off)")
	fs.StringVar(&c.Backend.URL, "backend.url", c.Backend.URL, "VictoriaLogs URL (single node, or a cluster's vlselect/vlinsert); empty runs the embedded engine")
	fs.StringVar(&c.Backend.InsertURL, "backend.insert-url", c.Backend.InsertURL, "VictoriaLogs URL that receives pushes (a cluster's vlinsert; default: -backend.url)")
	fs.StringVar(&c.Backend.SelectURL, "backend.select-url", c.Backend.SelectURL, "VictoriaLogs URL that serves queries, metadata and tails (a cluster's vlselect; default: -backend.url)")
	fs.DurationVar(&c.Backend.Timeout, "backend.timeout", c.Backend.Timeout, "timeout of one request to VictoriaLogs")
	fs.BoolVar(&c.Backend.ForeignData, "backend.foreign-data", c.Backend.ForeignData, "serve data other agents wrote into VictoriaLogs: Loki-style field names, a line rebuilt for rows without _msg, service_name and detected_level derived at query time")
	fs.StringVar(&c.Backend.SoleWriter, "backend.sole-writer", c.Backend.SoleWriter, "vloki is the only writer into VictoriaLogs: label names and values answered from memory, range-query steps reused up to now (a push drops the steps it touches): auto (with the embedded engine), on (only for an external VictoriaLogs nobody else writes into, served by one vloki or by the replicas of -backend.sole-writer-peers; set -storage.retention to its retention), off")
	fs.Var((*listValue)(&c.Backend.SoleWriterPeers), "backend.sole-writer-peers", "with -backend.sole-writer=on: comma-separated URLs of the vloki replicas that together are the only writers into the external VictoriaLogs (this one may be listed); each tells the others of every push before acknowledging it (docs/backends.md)")
	fs.StringVar(&c.Backend.SoleWriterSelf, "backend.sole-writer-self", c.Backend.SoleWriterSelf, "this replica's URL as the other -backend.sole-writer-peers reach it")
	fs.DurationVar(&c.Backend.SoleWriterLease, "backend.sole-writer-lease", c.Backend.SoleWriterLease, "how long a replica trusts what it knows after the other -backend.sole-writer-peers answered; a push that cannot reach a replica waits at most this long (plus a tenth and 100ms)")
	fs.StringVar(&c.Backend.DefaultMsgValue, "backend.default-msg-value", c.Backend.DefaultMsgValue, "VictoriaLogs' -defaultMsgValue: the _msg of rows stored without one")
	fs.StringVar(&c.Storage.Path, "storage.path", c.Storage.Path, "data directory of the embedded engine")
	fs.StringVar(&c.Storage.Retention, "storage.retention", c.Storage.Retention, "retention of the embedded engine (VictoriaLogs duration, e.g. 30d, 1y)")
	fs.DurationVar(&c.Storage.FlushInterval, "storage.flush-interval", c.Storage.FlushInterval, "how often the embedded engine writes in-memory rows to disk (min 1s); a kill -9 may lose rows acknowledged in the last 2 × interval + 1s")
	fs.BoolVar(&c.Auth.Enabled, "auth.enabled", c.Auth.Enabled, "require X-Scope-OrgID (Loki's auth_enabled); when off every request is tenant \"fake\"")
	fs.StringVar(&c.Auth.TenantsFile, "auth.tenants-file", c.Auth.TenantsFile, "YAML file mapping tenants to VictoriaLogs AccountID/ProjectID")
	bindLimits(fs, &c.Limits)
	fs.StringVar(&c.RuntimeConfig.File, "runtime-config.file", c.RuntimeConfig.File, "Loki's runtime configuration file: per-tenant limits under overrides:, Loki's limits_config keys (docs/limits.md); read at start (a bad file stops it) and again every -runtime-config.reload-period")
	fs.DurationVar(&c.RuntimeConfig.Period, "runtime-config.reload-period", c.RuntimeConfig.Period, "how often the runtime configuration file is read again; a bad file keeps the last good overrides (Loki's default 10s)")
	fs.StringVar(&c.Tail.Backend, "tail.backend", c.Tail.Backend, "live tails also follow VictoriaLogs' own tail (rows other agents or replicas write): auto (with -backend.url), on, off")
	fs.BoolVar(&c.Frontend.CacheResults, "frontend.cache-results", c.Frontend.CacheResults, "cache answers over time ranges older than -frontend.max-cache-freshness")
	fs.Int64Var(&c.Frontend.ResultsCacheMaxBytes, "frontend.results-cache-max-bytes", c.Frontend.ResultsCacheMaxBytes, "bytes the in-process results cache may hold (answers kept by their steps included; the index of their push numbers is bounded apart at 8 MiB of keys)")
	fs.Int64Var(&c.Frontend.ExtentsMaxBytes, "frontend.extents-max-bytes", c.Frontend.ExtentsMaxBytes, "bytes the in-process store of range queries' frozen steps may hold (0: none)")
	fs.Int64Var(&c.Frontend.RecentLogsCacheSize, "frontend.recent-logs-cache-size", c.Frontend.RecentLogsCacheSize, "bytes the in-process store of log queries' answers over frozen data may hold, so that a moving window reads only what is newer; least recently used queries out first (0: none)")
	fs.Int64Var(&c.Frontend.SamplesCacheSize, "frontend.samples-cache-size", c.Frontend.SamplesCacheSize, "bytes the in-process store of samples range aggregations extracted from frozen data may hold, reused by later requests at any grid; one input at most an eighth (0: none)")
	fs.StringVar(&c.Frontend.ResultsCacheBackend, "frontend.results-cache-backend", c.Frontend.ResultsCacheBackend, "where answers are cached: memory (this process), memcached or redis (shared by replicas)")
	fs.Var((*listValue)(&c.Frontend.MemcachedAddresses), "frontend.memcached-addresses", "comma-separated host:port of the memcached servers")
	fs.StringVar(&c.Frontend.RedisAddress, "frontend.redis-address", c.Frontend.RedisAddress, "host:port of the Redis server")
	fs.DurationVar(&c.Frontend.ResultsCacheTTL, "frontend.results-cache-ttl", c.Frontend.ResultsCacheTTL, "how long memcached or Redis keep an answer")
	fs.DurationVar(&c.Frontend.MaxCacheFreshness, "frontend.max-cache-freshness", c.Frontend.MaxCacheFreshness, "answers reaching into this recent past are not cached (Loki's max_cache_freshness_per_query)")
	fs.BoolVar(&c.Frontend.CompressResponses, "frontend.compress-responses", c.Frontend.CompressResponses, "gzip query answers of at least 1400 bytes for clients accepting gzip, with Vary: Accept-Encoding on every query answer (Loki's compress_responses; off in Loki v3.7.8)")
	fs.BoolVar(&c.Frontend.Coalesce, "frontend.coalesce", c.Frontend.Coalesce, "identical queries in flight share one execution")
	fs.IntVar(&c.Frontend.StreamIndexMaxStreams, "frontend.stream-index-max-streams", c.Frontend.StreamIndexMaxStreams, "streams the stream index keeps across tenants, and apart as many streams with lines holding a backslash or a byte outside ASCII (narrowed pushdowns); a tenant with more is answered by VictoriaLogs")
	fs.IntVar(&c.Frontend.StreamIndexMaxLines, "frontend.stream-index-max-lines", c.Frontend.StreamIndexMaxLines, "entries whose time and line length the stream index keeps (16-32 bytes each), so volumes over recent ranges are summed from memory; older entries are dropped first and their ranges answered by VictoriaLogs (0: none)")
	fs.IntVar(&c.Frontend.NeedleIndexMaxBytes, "frontend.needle-index-max-bytes", c.Frontend.NeedleIndexMaxBytes, "bytes of hourly filters of the long words (16+ letters, digits or _) of the lines, metadata and labels vloki writes, so a search for a trace id reads only the hours that may hold it; the oldest hours are dropped first and their ranges searched whole (0: none; only with the stream index and no replicas)")
	fs.DurationVar(&c.Ingester.ChunkIdlePeriod, "ingester.chunk-idle-period", c.Ingester.ChunkIdlePeriod, "Loki's chunk_idle_period, with -backend.sole-writer: label names, values and detected labels list a stream for any range until it has been idle this long, then through the index units Loki would flush it into (docs/loki-label-index.md); 0: the whole UTC days the range touches")
	fs.DurationVar(&c.Ingester.FlushCheckPeriod, "ingester.flush-check-period", c.Ingester.FlushCheckPeriod, "Loki's flush_check_period: an idle stream is flushed at the next check")
	fs.Var(&c.Ingester.QueryStoreMaxLookBackPeriod, "ingester.query-store-max-look-back-period", "Loki's query_store_max_look_back_period: in-memory streams are listed for ranges ending after now minus this, and detected labels read the index before it; 0: Loki's single-binary default (2h41m), -1: memory for every range and detected labels from memory only")
	fs.IntVar(&c.QueryScheduler.MaxConcurrent, "query-scheduler.max-concurrent", c.QueryScheduler.MaxConcurrent, "queries that run at once (0: 4 per CPU); more wait in a per-tenant queue")
	fs.IntVar(&c.QueryScheduler.MaxConcurrentLong, "query-scheduler.max-concurrent-long", c.QueryScheduler.MaxConcurrentLong, "of those, how many may be long (0: half), so short queries never wait behind long ones")
	fs.DurationVar(&c.QueryScheduler.LongQuerySpan, "query-scheduler.long-query-span", c.QueryScheduler.LongQuerySpan, "time span from which a query is long")
	fs.IntVar(&c.QueryScheduler.MaxOutstandingPerTenant, "query-scheduler.max-outstanding-requests-per-tenant", c.QueryScheduler.MaxOutstandingPerTenant, "queued queries per tenant beyond which vloki answers 429 too many outstanding requests (0: unbounded)")
	fs.Float64Var(&c.Memory.AllowedPercent, "memory.allowed-percent", c.Memory.AllowedPercent, "percent of the machine's memory the process may use: the embedded VictoriaLogs' cache sizes and Go's soft memory limit")
	fs.Int64Var(&c.Memory.AllowedBytes, "memory.allowed-bytes", c.Memory.AllowedBytes, "bytes the process may use; overrides -memory.allowed-percent when > 0")
	fs.IntVar(&c.Memory.GCPercent, "memory.gc-percent", c.Memory.GCPercent, "Go's GOGC for the process (0: 50 on the embedded engine, Go's 100 on an external VictoriaLogs); a GOGC in the environment wins")
	fs.BoolVar(&c.Patterns.Enabled, "patterns.enabled", c.Patterns.Enabled, "answer /loki/api/v1/patterns (Logs Drilldown's Patterns tab) as Loki with its pattern ingester on; off answers none, as Loki's default")
	fs.IntVar(&c.Patterns.MaxLines, "patterns.max-lines", c.Patterns.MaxLines, "newest lines of the last 3 hours one patterns request reads and clusters")
	fs.IntVar(&c.Patterns.MaxLiveStreams, "patterns.max-live-streams", c.Patterns.MaxLiveStreams, "streams whose pushes are mined for patterns as they come (with -backend.sole-writer), across tenants; a tenant beyond it is mined from storage when asked")
	fs.StringVar(&c.Deletion.Mode, "deletion.mode", c.Deletion.Mode, "Loki's deletion_mode for /loki/api/v1/delete: disabled, filter-only (lines hidden at query time, never deleted) or filter-and-delete (also deleted from storage after the cancel period; VictoriaLogs v1.38+ with -delete.enable)")
	fs.DurationVar(&c.Deletion.CancelPeriod, "deletion.cancel-period", c.Deletion.CancelPeriod, "Loki's delete_request_cancel_period: a delete request can be cancelled this long, then its rows are deleted from storage")
	fs.DurationVar(&c.Deletion.MaxInterval, "deletion.max-interval", c.Deletion.MaxInterval, "Loki's delete_max_interval: the largest max_interval a delete request may give")
	fs.StringVar(&c.Deletion.Dir, "deletion.dir", c.Deletion.Dir, "directory keeping the delete requests, a file per tenant (empty: <storage.path>/deletes); replicas on one VictoriaLogs need a shared one")
	fs.BoolVar(&c.Ruler.EnableAPI, "ruler.enable-api", c.Ruler.EnableAPI, "Loki's ruler.enable_api: serve the rules API (/loki/api/v1/rules, /api/prom/rules, /prometheus/api/v1/rules and /alerts) from the rule store; off, /prometheus/api/v1/rules and /alerts list nothing")
	fs.StringVar(&c.Ruler.Storage.Local.Directory, "ruler.storage.local.directory", c.Ruler.Storage.Local.Directory, "Loki's ruler.storage.local.directory: rule files as <dir>/<tenant>/<namespace> (empty: <storage.path>/rules); replicas need a shared one")
	fs.BoolVar(&c.Ruler.Storage.Local.ReadOnly, "ruler.storage.local.read-only", c.Ruler.Storage.Local.ReadOnly, "answer rule writes and single-group reads as Loki's read-only local store does (\"… unsupported in rule local store\"); off, the API writes the files")
	fs.DurationVar(&c.Ruler.EvaluationInterval, "ruler.evaluation-interval", c.Ruler.EvaluationInterval, "Loki's ruler.evaluation_interval: the interval of rule groups that set none")
	fs.BoolVar(&c.Ruler.EnableEvaluation, "ruler.enable-evaluation", c.Ruler.EnableEvaluation, "evaluate the stored rules (vloki's); off, they are only served by the rules API, e.g. on a replica sharing another's rule directory")
	fs.DurationVar(&c.Ruler.PollInterval, "ruler.poll-interval", c.Ruler.PollInterval, "Loki's ruler.poll_interval: how often the rule store is re-read for evaluation (rules written through the API are loaded at once)")
	fs.StringVar(&c.Ruler.RulePath, "ruler.rule-path", c.Ruler.RulePath, "Loki's ruler.rule_path: nothing is written there, but it is part of each group's identity, hence of its evaluation slot; Loki's value evaluates at Loki's instants")
	fs.StringVar(&c.Ruler.ExternalURL, "ruler.external-url", c.Ruler.ExternalURL, "Loki's ruler.external_url: $externalURL in rule templates")
	fs.StringVar(&c.Ruler.AlertmanagerURL, "ruler.alertmanager-url", c.Ruler.AlertmanagerURL, "Loki's ruler.alertmanager_url: comma-separated Alertmanager URLs alerts are sent to (API v2; user info for basic auth); empty: alerts are evaluated, not sent")
	fs.IntVar(&c.Ruler.NotificationQueueCapacity, "ruler.notification-queue-capacity", c.Ruler.NotificationQueueCapacity, "Loki's ruler.notification_queue_capacity: alerts queued per tenant for Alertmanager")
	fs.DurationVar(&c.Ruler.NotificationTimeout, "ruler.notification-timeout", c.Ruler.NotificationTimeout, "Loki's ruler.notification_timeout: the timeout of a notification to Alertmanager")
	fs.StringVar(&c.Ruler.DatasourceUID, "ruler.datasource-uid", c.Ruler.DatasourceUID, "Loki's ruler.datasource_uid: the Grafana data source of the Explore link in alerts' generatorURL")
	fs.BoolVar(&c.Ruler.RemoteWrite.Enabled, "ruler.remote-write.enabled", c.Ruler.RemoteWrite.Enabled, "Loki's ruler.remote_write.enabled: send recorded samples (and ALERTS) by remote write v1 through a per-tenant WAL; off, they are discarded")
	fs.StringVar(&c.Ruler.RemoteWrite.URL, "ruler.remote-write.url", c.Ruler.RemoteWrite.URL, "one remote write receiver, vloki's shorthand for Loki's ruler.remote_write.clients (YAML only) with a single client \"default\" (user info for basic auth)")
	fs.BoolVar(&c.Ruler.RemoteWrite.AddOrgIDHeader, "ruler.remote-write.add-org-id-header", c.Ruler.RemoteWrite.AddOrgIDHeader, "Loki's ruler.remote_write.add_org_id_header: set X-Scope-OrgID to the rule's tenant on remote write requests (any X-Scope-OrgID of a client's headers is dropped, as in Loki)")
	fs.StringVar(&c.Ruler.Storage.Type, "ruler.storage.type", c.Ruler.Storage.Type, "Loki's ruler.storage.type: local or empty, vloki's only store (Loki's local layout under -ruler.storage.local.directory)")
	fs.StringVar(&c.Ruler.WAL.Dir, "ruler.wal.dir", c.Ruler.WAL.Dir, "Loki's ruler.wal.dir: each tenant's remote write WAL (empty: <storage.path>/ruler-wal)")
	fs.DurationVar(&c.Ruler.ForOutageTolerance, "ruler.for-outage-tolerance", c.Ruler.ForOutageTolerance, "Loki's ruler.for_outage_tolerance: the longest outage over which an alert's for state is restored")
	fs.DurationVar(&c.Ruler.ForGracePeriod, "ruler.for-grace-period", c.Ruler.ForGracePeriod, "Loki's ruler.for_grace_period: the least for a restored alert waits; rules with a shorter for are not restored")
	fs.DurationVar(&c.Ruler.QueryOffset, "ruler.query-offset", c.Ruler.QueryOffset, "vloki's: rule groups without query_offset query at each evaluation slot minus this, so that late logs are counted; samples and ALERTS are stamped at that instant (0: at the slot, as Loki)")
	fs.BoolVar(&c.Ruler.PersistAlertState, "ruler.persist-alert-state", c.Ruler.PersistAlertState, "vloki's: keep each tenant's pending and firing alerts (labels, activeAt, firing and keep-firing times) in -ruler.alert-state-dir, so that a firing alert is firing again after a restart with its startsAt; off, alerts start over as in Loki")
	fs.StringVar(&c.Ruler.AlertStateDir, "ruler.alert-state-dir", c.Ruler.AlertStateDir, "where -ruler.persist-alert-state keeps the alerts, a file per tenant (empty: <storage.path>/ruler-state)")
	fs.DurationVar(&c.Ruler.ResendDelay, "ruler.resend-delay", c.Ruler.ResendDelay, "Loki's ruler.resend_delay: how long before a firing alert is sent again")
	fs.IntVar(&c.Ruler.Backfill.MaxSlots, "ruler.backfill.max-slots", c.Ruler.Backfill.MaxSlots, "the most evaluation slots one backfill of recording rules (POST /ruler/backfill, vloki rules backfill) evaluates, all its groups together")
	fs.BoolVar(&c.Ruler.Lease.Enabled, "ruler.lease.enabled", c.Ruler.Lease.Enabled, "replicas sharing the rule directory evaluate the rules by turns: the one holding the lease file <rule dir>/.ruler-lease evaluates, the others serve the API and take over once it expires")
	fs.DurationVar(&c.Ruler.Lease.Duration, "ruler.lease.duration", c.Ruler.Lease.Duration, "how long the evaluation lease lasts unless renewed: the longest a failed holder's rules go unevaluated")
	fs.DurationVar(&c.Ruler.Lease.RenewPeriod, "ruler.lease.renew-period", c.Ruler.Lease.RenewPeriod, "how often the holder renews the evaluation lease and the other replicas look whether it expired (at most half the duration)")
	fs.StringVar(&c.Ruler.Lease.Holder, "ruler.lease.holder", c.Ruler.Lease.Holder, "this replica's name in the evaluation lease, unique among the replicas (empty: <host name>-<pid>)")
	fs.StringVar(&c.Log.Level, "log.level", c.Log.Level, "log level: debug, info, warn, error")
	fs.StringVar(&c.Log.Format, "log.format", c.Log.Format, "log format: logfmt or json")
	fs.BoolVar(&c.Demo, "demo", c.Demo, "feed a few demo services' logs in continuously")
}

// bindLimits binds the limits block: the defaults of the per-tenant
// limits, then the process-wide ones.
func bindLimits(fs *flag.FlagSet, l *Limits) {
	fs.Float64Var(&l.IngestionRateMB, "limits.ingestion-rate-mb", l.IngestionRateMB, "per-tenant ingestion rate limit, MiB of lines and structured metadata a second (0: none); beyond it pushes get Loki's 429")
	fs.Float64Var(&l.IngestionBurstSizeMB, "limits.ingestion-burst-size-mb", l.IngestionBurstSizeMB, "per-tenant ingestion burst, MiB")
	fs.IntVar(&l.MaxLabelNameLength, "limits.max-label-name-length", l.MaxLabelNameLength, "longest label name a pushed stream may have")
	fs.IntVar(&l.MaxLabelValueLength, "limits.max-label-value-length", l.MaxLabelValueLength, "longest label value a pushed stream may have")
	fs.IntVar(&l.MaxLabelNamesPerSeries, "limits.max-label-names-per-series", l.MaxLabelNamesPerSeries, "most labels a pushed stream may have (service_name aside)")
	fs.BoolVar(&l.RejectOldSamples, "limits.reject-old-samples", l.RejectOldSamples, "refuse pushed entries older than -limits.reject-old-samples-max-age (off: vloki serves historical data; Loki's default is on)")
	fs.Var(&l.RejectOldSamplesMaxAge, "limits.reject-old-samples-max-age", "oldest entry accepted when -limits.reject-old-samples is on")
	fs.Var(&l.CreationGracePeriod, "limits.creation-grace-period", "how far in the future a pushed entry's timestamp may be")
	fs.Var(&l.MaxLineSize, "limits.max-line-size", "maximum pushed line size (0: unlimited)")
	fs.Var((*listValue)(&l.DiscoverServiceName), "limits.discover-service-name", "comma-separated labels to derive service_name from (\"-\" disables)")
	fs.BoolVar(&l.DiscoverLogLevels, "limits.discover-log-levels", l.DiscoverLogLevels, "add detected_level structured metadata at ingestion, like Loki")
	fs.Var((*listValue)(&l.LogLevelFields), "limits.log-level-fields", "comma-separated labels, structured metadata and line fields detected_level is read from")
	fs.IntVar(&l.LogLevelFromJSONMaxDepth, "limits.log-level-from-json-max-depth", l.LogLevelFromJSONMaxDepth, "how deep in a JSON line a level field is looked for")
	fs.Var(&l.MaxStructuredMetadataSize, "limits.max-structured-metadata-size", "most bytes of structured metadata one pushed entry may have (0: unlimited)")
	fs.IntVar(&l.MaxStructuredMetadataEntriesCount, "limits.max-structured-metadata-entries-count", l.MaxStructuredMetadataEntriesCount, "most structured metadata entries one pushed entry may have (0: unlimited)")
	fs.IntVar(&l.MaxQuerySeries, "limits.max-query-series", l.MaxQuerySeries, "maximum series of a metric query")
	fs.Var(&l.MaxQueryLength, "limits.max-query-length", "longest time range a query may span (0: unlimited)")
	fs.IntVar(&l.MaxEntriesLimitPerQuery, "limits.max-entries-limit-per-query", l.MaxEntriesLimitPerQuery, "maximum limit of a log query")
	fs.Var(&l.QueryTimeout, "limits.query-timeout", "query timeout")
	fs.Var(&l.MaxQueryBytesRead, "limits.max-query-bytes-read", "Loki's max_query_bytes_read: line bytes the selectors of a metric query, or of a log query with a filter, may read over its range, measured before it runs; above it a 400 (0: unlimited)")
	fs.Var(&l.MaxQueryBufferedBytes, "limits.max-query-buffered-bytes", "bytes one metric query may hold while reading rows; over it the query fails with a 400 (0: unlimited)")
	fs.IntVar(&l.MaxConcurrentTailRequests, "limits.max-concurrent-tail-requests", l.MaxConcurrentTailRequests, "Loki's max_concurrent_tail_requests: live tails a tenant may have open; one more is closed with Loki's error (0: none)")
	fs.IntVar(&l.RulerMaxRulesPerRuleGroup, "limits.ruler-max-rules-per-rule-group", l.RulerMaxRulesPerRuleGroup, "Loki's ruler_max_rules_per_rule_group: rules a group set through the API may hold (0: unlimited)")
	fs.IntVar(&l.RulerMaxRuleGroupsPerTenant, "limits.ruler-max-rule-groups-per-tenant", l.RulerMaxRuleGroupsPerTenant, "Loki's ruler_max_rule_groups_per_tenant: rule groups a tenant may hold (0: unlimited)")
	fs.Int64Var(&l.MaxPushBodyBytes, "limits.max-push-body-bytes", l.MaxPushBodyBytes, "maximum decompressed push body (for the whole process)")
}

func splitList(s string) []string {
	if s == "-" {
		return []string{}
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// listValue is a comma-separated list flag.
type listValue []string

func (l *listValue) String() string {
	if l == nil || *l == nil {
		return ""
	}
	if len(*l) == 0 {
		return "-"
	}
	return strings.Join(*l, ",")
}

func (l *listValue) Set(s string) error {
	*l = splitList(s)
	return nil
}
