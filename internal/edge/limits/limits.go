// Package limits holds the limits vloki applies per tenant, under Loki's
// limits_config names: the defaults (vloki's limits block), and each
// tenant's overrides from Loki's runtime configuration file, reloaded
// while vloki runs.
package limits

import (
	"errors"
	"time"

	"github.com/prometheus/common/model"
)

// Limits are one tenant's limits. Every reader takes them from
// Overrides.For(tenant), once per request.
type Limits struct {
	// Ingestion: Loki's distributor checks (push.Validate) and its
	// per-tenant rate limit (ingest.RateLimiter), in MiB of entries (lines
	// and structured metadata) a second; a rate of 0 turns it off.
	IngestionRateMB                   float64        `yaml:"ingestion_rate_mb"`
	IngestionBurstSizeMB              float64        `yaml:"ingestion_burst_size_mb"`
	MaxLabelNameLength                int            `yaml:"max_label_name_length"`
	MaxLabelValueLength               int            `yaml:"max_label_value_length"`
	MaxLabelNamesPerSeries            int            `yaml:"max_label_names_per_series"`
	RejectOldSamples                  bool           `yaml:"reject_old_samples"`
	RejectOldSamplesMaxAge            model.Duration `yaml:"reject_old_samples_max_age"`
	CreationGracePeriod               model.Duration `yaml:"creation_grace_period"`
	MaxLineSize                       ByteSize       `yaml:"max_line_size"`
	DiscoverServiceName               []string       `yaml:"discover_service_name"`
	DiscoverLogLevels                 bool           `yaml:"discover_log_levels"`
	LogLevelFields                    []string       `yaml:"log_level_fields"`
	LogLevelFromJSONMaxDepth          int            `yaml:"log_level_from_json_max_depth"`
	MaxStructuredMetadataSize         ByteSize       `yaml:"max_structured_metadata_size"`
	MaxStructuredMetadataEntriesCount int            `yaml:"max_structured_metadata_entries_count"`

	// Queries: the engine's, the handlers' and the frontend's checks.
	MaxQuerySeries          int            `yaml:"max_query_series"`
	MaxQueryLength          model.Duration `yaml:"max_query_length"`
	MaxEntriesLimitPerQuery int            `yaml:"max_entries_limit_per_query"`
	QueryTimeout            model.Duration `yaml:"query_timeout"`
	// MaxQueryBytesRead: a metric query, or a log query with a filter,
	// whose selectors would read more line bytes over its range is
	// refused before it runs (0: unlimited).
	MaxQueryBytesRead ByteSize `yaml:"max_query_bytes_read"`
	// MaxQueryBufferedBytes is vloki's: the bytes one metric query holds
	// while reading rows (samples, per-series buckets); over it the query
	// fails with a 400 rather than growing without bound (0: unlimited).
	MaxQueryBufferedBytes ByteSize `yaml:"max_query_buffered_bytes"`
	// MaxConcurrentTailRequests bounds a tenant's live tails: a tail
	// that finds this many open is closed with Loki's error (0: no tail
	// at all, as in Loki).
	MaxConcurrentTailRequests int `yaml:"max_concurrent_tail_requests"`

	// Ruler: what the rules API lets a tenant hold (0: unlimited).
	RulerMaxRulesPerRuleGroup   int `yaml:"ruler_max_rules_per_rule_group"`
	RulerMaxRuleGroupsPerTenant int `yaml:"ruler_max_rule_groups_per_tenant"`
}

// Default are vloki's defaults: Loki v3.7.8's (pkg/validation/limits.go)
// except where said.
func Default() Limits {
	return Limits{
		// VictoriaLogs ingests far faster than Loki's ingesters (whose
		// defaults are 4 and 6): the bound is there to protect, not to
		// throttle a migration.
		IngestionRateMB: 64, IngestionBurstSizeMB: 128,
		MaxLabelNameLength:     1024,
		MaxLabelValueLength:    2048,
		MaxLabelNamesPerSeries: 15,
		// Old samples are accepted: vloki serves historical data.
		RejectOldSamples:       false,
		RejectOldSamplesMaxAge: model.Duration(7 * 24 * time.Hour),
		CreationGracePeriod:    model.Duration(10 * time.Minute),
		MaxLineSize:            256 * 1024,
		DiscoverServiceName: []string{"service", "app", "application", "app_name", "name", "app_kubernetes_io_name",
			"container", "container_name", "k8s_container_name", "component", "workload", "job", "k8s_job_name"},
		DiscoverLogLevels: true,
		LogLevelFields: []string{"level", "LEVEL", "Level", "log.level", "severity", "SEVERITY", "Severity", "SeverityText",
			"lvl", "LVL", "Lvl", "severity_text", "Severity_Text", "SEVERITY_TEXT"},
		LogLevelFromJSONMaxDepth:          2,
		MaxStructuredMetadataSize:         64 * 1024,
		MaxStructuredMetadataEntriesCount: 128,

		MaxQuerySeries:          500,
		MaxQueryLength:          model.Duration(721 * time.Hour),
		MaxEntriesLimitPerQuery: 5000,
		// Loki's is 1m too; vloki's answers come from one process.
		QueryTimeout:              model.Duration(time.Minute),
		MaxQueryBufferedBytes:     256 << 20,
		MaxConcurrentTailRequests: 10,
	}
}

// Validate rejects limits vloki cannot run with.
func (l Limits) Validate() error {
	switch {
	case l.MaxEntriesLimitPerQuery <= 0:
		return errors.New("max_entries_limit_per_query must be > 0")
	case l.QueryTimeout <= 0:
		return errors.New("query_timeout must be > 0")
	case l.IngestionRateMB < 0 || l.IngestionBurstSizeMB < 0:
		return errors.New("ingestion_rate_mb and ingestion_burst_size_mb must be >= 0")
	case l.MaxConcurrentTailRequests < 0:
		return errors.New("max_concurrent_tail_requests must be >= 0")
	case l.RulerMaxRulesPerRuleGroup < 0 || l.RulerMaxRuleGroupsPerTenant < 0:
		return errors.New("ruler_max_rules_per_rule_group and ruler_max_rule_groups_per_tenant must be >= 0")
	}
	return nil
}

// IngestionRate is the rate limit and burst in bytes a second, as Loki
// converts ingestion_rate_mb and ingestion_burst_size_mb (MiB).
func (l Limits) IngestionRate() (rate, burst int) {
	return int(l.IngestionRateMB * (1 << 20)), int(l.IngestionBurstSizeMB * (1 << 20))
}
