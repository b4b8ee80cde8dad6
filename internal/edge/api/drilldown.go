package api

import (
	"encoding/json"
	"net/http"

	"github.com/vloki/vloki/internal/edge/tenant"
)

// drilldownLimits serves /loki/api/v1/drilldown-limits: the limits of the
// tenant X-Scope-OrgID names, which Loki requires even when auth is off
// (and then reads that tenant's overrides, as here). pattern_ingester_enabled
// tells Drilldown whether to show its Patterns tab.
func (s *Server) drilldownLimits(w http.ResponseWriter, r *http.Request) {
	name := r.Header.Get(tenant.Header)
	if name == "" {
		writeText(w, http.StatusUnauthorized, "no org id\n")
		return
	}
	l := s.d.Limits.For(s.d.Tenants.Map(name))
	body := map[string]any{
		"limits": map[string]any{
			"discover_log_levels":         l.DiscoverLogLevels,
			"discover_service_name":       l.DiscoverServiceName,
			"log_level_fields":            l.LogLevelFields,
			"max_entries_limit_per_query": l.MaxEntriesLimitPerQuery,
			"max_line_size_truncate":      false,
			"max_query_bytes_read":        l.MaxQueryBytesRead.String(),
			"max_query_length":            l.MaxQueryLength.String(),
			"max_query_lookback":          "0s",
			"max_query_range":             "0s",
			"max_query_series":            l.MaxQuerySeries,
			"metric_aggregation_enabled":  false,
			"pattern_persistence_enabled": false,
			"query_timeout":               l.QueryTimeout.String(),
			"retention_period":            "0s",
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
