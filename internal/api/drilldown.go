package api

import (
	"encoding/json"
	"net/http"

	"github.com/vloki/vloki/internal/tenant"
)

// DrilldownLimits are the tenant limits Logs Drilldown reads.
type DrilldownLimits struct {
	MaxEntriesLimitPerQuery int
	MaxQuerySeries          int
	MaxQueryLength          string
	QueryTimeout            string
	DiscoverServiceName     []string
	DiscoverLogLevels       bool
	LogLevelFields          []string
	RetentionPeriod         string
}

// drilldownLimits serves /loki/api/v1/drilldown-limits. Like Loki it needs
// X-Scope-OrgID even when auth is off. pattern_ingester_enabled tells
// Drilldown whether to show its Patterns tab.
func (s *Server) drilldownLimits(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(tenant.Header) == "" {
		writeText(w, http.StatusUnauthorized, "no org id\n")
		return
	}
	l := s.d.DrilldownLimits
	body := map[string]any{
		"limits": map[string]any{
			"discover_log_levels":         l.DiscoverLogLevels,
			"discover_service_name":       l.DiscoverServiceName,
			"log_level_fields":            l.LogLevelFields,
			"max_entries_limit_per_query": l.MaxEntriesLimitPerQuery,
			"max_line_size_truncate":      false,
			"max_query_bytes_read":        "0B",
			"max_query_length":            l.MaxQueryLength,
			"max_query_lookback":          "0s",
			"max_query_range":             "0s",
			"max_query_series":            l.MaxQuerySeries,
			"metric_aggregation_enabled":  false,
			"pattern_persistence_enabled": false,
			"query_timeout":               l.QueryTimeout,
			"retention_period":            l.RetentionPeriod,
			"retention_stream":            []any{},
			"volume_enabled":              true,
			"volume_max_series":           1000,
		},
		"pattern_ingester_enabled": s.d.Querier.PatternsEnabled(),
		"version":                  Version,
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// rules and alerts answer as a Loki without rule groups: Grafana's alerting
// pages list nothing instead of failing.
func (s *Server) rules(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"success","data":{"groups":[]},"errorType":"","error":""}`))
}

func (s *Server) alerts(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"success","data":{"alerts":[]},"errorType":"","error":""}`))
}
