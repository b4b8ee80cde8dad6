package integration

import (
	"strings"
	"testing"

	"github.com/vloki/vloki/internal/ruler/eval"
)

// rulerMetricsExposed: after the tenant's rules were evaluated, notified
// and remote-written, /metrics has every ruler metric under Loki's name,
// the tenant's series labelled as Loki labels them.
func rulerMetricsExposed(t *testing.T, tg target, tenant string) {
	t.Helper()
	body := string(tg.rulerDo(t, "GET", "/metrics", "", "").body)
	for _, name := range eval.MetricNames {
		if !strings.Contains(body, "\n"+name+"{") && !strings.Contains(body, "\n"+name+" ") {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	for _, series := range []string{
		`loki_prometheus_rule_evaluations_total{rule_group="/rules/` + tenant + `/ns1;eval",user="` + tenant + `"}`,
		`loki_prometheus_notifications_queue_capacity{user="` + tenant + `"} 10000`,
		`loki_ruler_wal_prometheus_remote_storage_samples_failed_total{remote_name="` + tenant + `-rw-default",tenant="` + tenant + `",`,
		`loki_ruler_sync_rules_total{reason="initial"} 1`,
	} {
		if !strings.Contains(body, "\n"+series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}
