package limits

// lokiOnlyKeys are Loki v3.7.8's limits_config keys vloki does not apply
// per tenant (its configuration reference lists them). A runtime
// configuration file written for Loki may hold them: they are accepted
// and reported, as a key Loki does not know is refused.
var lokiOnlyKeys = setOf(
	"ingestion_rate_strategy", "max_line_size_truncate", "max_line_size_truncate_identifier",
	"increment_duplicate_timestamp", "simulated_push_latency", "enable_multi_variant_queries",
	"discover_generic_fields", "use_owned_stream_count", "max_streams_per_user", "max_global_streams_per_user",
	"unordered_writes", "per_stream_rate_limit", "per_stream_rate_limit_burst", "max_chunks_per_query",
	"max_query_lookback", "max_query_range", "max_query_parallelism", "tsdb_max_query_parallelism",
	"tsdb_max_bytes_per_shard", "tsdb_sharding_strategy", "tsdb_precompute_chunks", "cardinality_limit",
	"max_streams_matchers_per_query", "max_cache_freshness_per_query",
	"max_metadata_cache_freshness", "max_stats_cache_freshness", "max_queriers_per_tenant", "max_query_capacity",
	"query_ready_index_num_days", "split_queries_by_interval", "split_metadata_queries_by_interval",
	"split_recent_metadata_queries_by_interval", "recent_metadata_query_window",
	"split_instant_metric_queries_by_interval", "engine_results_cache_time_bucket_interval",
	"split_ingester_queries_by_interval", "min_sharding_lookback", "max_querier_bytes_read", "volume_enabled",
	"volume_max_series", "ruler_alertmanager_config", "ruler_tenant_shard_size", "ruler_enable_wal_replay",
	"ruler_remote_write_disabled", "ruler_remote_write_url", "ruler_remote_write_timeout",
	"ruler_remote_write_headers", "ruler_remote_write_relabel_configs", "ruler_remote_write_queue_capacity",
	"ruler_remote_write_queue_min_shards", "ruler_remote_write_queue_max_shards",
	"ruler_remote_write_queue_max_samples_per_send", "ruler_remote_write_queue_batch_send_deadline",
	"ruler_remote_write_queue_min_backoff", "ruler_remote_write_queue_max_backoff",
	"ruler_remote_write_queue_retry_on_ratelimit", "ruler_remote_write_sigv4_config", "ruler_remote_write_config",
	"ruler_remote_evaluation_timeout", "ruler_remote_evaluation_max_response_size", "deletion_mode",
	"retention_period", "retention_stream", "per_tenant_override_config", "per_tenant_override_period",
	"allow_deletes", "shard_streams", "blocked_queries", "required_labels", "minimum_labels_number",
	"index_gateway_shard_size", "index_gateway_max_capacity", "bloom_gateway_enable_filtering",
	"bloom_build_max_builders", "bloom_build_task_max_retries", "bloom_build_builder_response_timeout",
	"bloom_creation_enabled", "bloom_planning_strategy", "bloom_split_series_keyspace_by",
	"bloom_task_target_series_chunk_size", "bloom_block_encoding", "bloom_prefetch_blocks",
	"bloom_max_block_size", "bloom_max_bloom_size", "allow_structured_metadata", "otlp_config",
	"block_ingestion_policy_until", "block_ingestion_until", "block_ingestion_status_code", "enforced_labels",
	"policy_enforced_labels", "policy_stream_mapping", "policy_override_limits",
	"ingestion_partitions_tenant_shard_size", "shard_aggregations",
	"pattern_ingester_tokenizable_json_fields_default", "pattern_ingester_tokenizable_json_fields_append",
	"pattern_ingester_tokenizable_json_fields_delete", "metric_aggregation_enabled",
	"pattern_persistence_enabled", "pattern_persistence_granularity", "pattern_rate_threshold", "s3_sse_type",
	"s3_sse_kms_key_id", "s3_sse_kms_encryption_context", "max_scan_task_parallelism", "debug_engine_tasks",
	"debug_engine_streams",
)

// lokiOnlySections are the other top-level keys of Loki's runtime
// configuration file (per-tenant operational configs, the multi KV
// store's): accepted and reported.
var lokiOnlySections = setOf("configs", "multi_kv_config")

func setOf(keys ...string) map[string]bool {
	out := make(map[string]bool, len(keys))
	for _, k := range keys {
		out[k] = true
	}
	return out
}
