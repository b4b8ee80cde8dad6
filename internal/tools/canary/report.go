package canary

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Report is what a run found. Counters names its figures as
// loki-canary's metrics are named, and the checker's own ones with the
// vloki_canary_ prefix.
type Report struct {
	Seconds float64

	Entries          int // loki_canary_entries_total
	BackStamped      int // entries stamped out of order (loki-canary has no metric)
	OutOfOrder       int // loki_canary_out_of_order_entries_total: delivered after an entry sent later
	Duplicates       int // loki_canary_duplicate_entries_total
	Unexpected       int // loki_canary_unexpected_entries_total
	WebsocketMissing int // loki_canary_websocket_missing_entries_total
	Missing          int // loki_canary_missing_entries_total
	QueryFound       int // entries the tail missed that a query found
	Reconnects       int // loki_canary_ws_reconnects_total
	Pings            int // loki_canary_ws_pings_total
	TailDropped      int // entries a tail frame listed as dropped

	SpotChecks           int // loki_canary_spot_check_entries_total
	SpotCheckMissing     int // loki_canary_spot_check_missing_entries_total
	SpotCheckSeconds     float64
	MetricTests          int // loki_canary_metric_test_request_duration_seconds_count
	MetricTestSeconds    float64
	MetricTestExpected   float64 // the last test's range over the interval, loki-canary's estimate
	MetricTestActual     float64 // the last test's count
	MetricTestMiscounts  int     // tests whose count was not what was acknowledged in their window
	PushErrors           int
	QueryErrors          int
	ResponseLatencyCount int // loki_canary_response_latency_seconds: time since the entry's timestamp
	ResponseLatencySum   float64

	// Send-to-delivery times over the tail, of entries delivered in time.
	DeliveryP50, DeliveryP99, DeliveryMax time.Duration

	// Findings describe the problems, the first 100.
	Findings []string
}

// LokiFailureCounters are loki-canary's counters of wrong answers.
var LokiFailureCounters = []string{
	"loki_canary_ws_reconnects_total",
	"loki_canary_websocket_missing_entries_total",
	"loki_canary_missing_entries_total",
	"loki_canary_unexpected_entries_total",
	"loki_canary_duplicate_entries_total",
	"loki_canary_spot_check_missing_entries_total",
}

// FailureCounters are the counters of wrong answers, loki-canary's and
// the checker's own (which loki-canary's record lacks, so 0 is allowed).
var FailureCounters = append(slices.Clone(LokiFailureCounters),
	"vloki_canary_metric_test_miscounts_total",
	"vloki_canary_push_errors_total",
	"vloki_canary_query_errors_total",
)

// Counters are the figures by metric name.
func (r *Report) Counters() map[string]float64 {
	return map[string]float64{
		"loki_canary_entries_total":                              float64(r.Entries),
		"loki_canary_out_of_order_entries_total":                 float64(r.OutOfOrder),
		"loki_canary_duplicate_entries_total":                    float64(r.Duplicates),
		"loki_canary_unexpected_entries_total":                   float64(r.Unexpected),
		"loki_canary_websocket_missing_entries_total":            float64(r.WebsocketMissing),
		"loki_canary_missing_entries_total":                      float64(r.Missing),
		"loki_canary_ws_reconnects_total":                        float64(r.Reconnects),
		"loki_canary_ws_pings_total":                             float64(r.Pings),
		"loki_canary_spot_check_entries_total":                   float64(r.SpotChecks),
		"loki_canary_spot_check_missing_entries_total":           float64(r.SpotCheckMissing),
		"loki_canary_spot_check_request_duration_seconds_count":  float64(r.SpotChecks),
		"loki_canary_spot_check_request_duration_seconds_sum":    r.SpotCheckSeconds,
		"loki_canary_metric_test_expected":                       r.MetricTestExpected,
		"loki_canary_metric_test_actual":                         r.MetricTestActual,
		"loki_canary_metric_test_request_duration_seconds_count": float64(r.MetricTests),
		"loki_canary_metric_test_request_duration_seconds_sum":   r.MetricTestSeconds,
		"loki_canary_response_latency_seconds_count":             float64(r.ResponseLatencyCount),
		"loki_canary_response_latency_seconds_sum":               r.ResponseLatencySum,
		"vloki_canary_back_stamped_entries_total":                float64(r.BackStamped),
		"vloki_canary_query_found_entries_total":                 float64(r.QueryFound),
		"vloki_canary_tail_dropped_entries_total":                float64(r.TailDropped),
		"vloki_canary_metric_test_miscounts_total":               float64(r.MetricTestMiscounts),
		"vloki_canary_push_errors_total":                         float64(r.PushErrors),
		"vloki_canary_query_errors_total":                        float64(r.QueryErrors),
	}
}

// Beyond lists how the run did worse than ref, counters by metric name
// (what loki-canary reported against Loki): a failure counter above ref's
// (0 where ref has none), an entry delivered out of order that no
// back-stamped entry explains (Loki's tail reorders only those), or a
// check that never ran. Empty means the run is as good as ref.
func (r *Report) Beyond(ref map[string]float64) []string {
	got := r.Counters()
	var out []string
	for _, name := range FailureCounters {
		if got[name] > ref[name] {
			out = append(out, fmt.Sprintf("%s = %v, reference %v", name, got[name], ref[name]))
		}
	}
	if r.OutOfOrder > r.BackStamped {
		out = append(out, fmt.Sprintf("loki_canary_out_of_order_entries_total = %d, more than the %d entries stamped out of order (reference %v of %v entries)",
			r.OutOfOrder, r.BackStamped, ref["loki_canary_out_of_order_entries_total"], ref["loki_canary_entries_total"]))
	}
	for _, name := range []string{"loki_canary_entries_total", "loki_canary_spot_check_entries_total", "loki_canary_metric_test_request_duration_seconds_count"} {
		if got[name] == 0 && ref[name] > 0 {
			out = append(out, name+" = 0: the check did not run")
		}
	}
	return out
}

// Names are the counters' names, sorted.
func (r *Report) Names() []string { return slices.Sorted(maps.Keys(r.Counters())) }
