package eval

import (
	"log/slog"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// MetricNames are the ruler's series names, Loki's: a tenant's rules
// manager (loki_prometheus_rule_*{user, rule_group}), its notifier
// (loki_prometheus_notifications_*{user, alertmanager}) and its remote
// write queues (loki_ruler_wal_prometheus_remote_storage_*{tenant,
// remote_name, url}), and the ruler's own. Dashboards and alerts use
// only these (deploy tests); each is exposed once a tenant has evaluated
// rules with an Alertmanager and remote write (TestMetricsAfterAnEvaluation).
var MetricNames = []string{
	"loki_ruler_sync_rules_total",
	"loki_ruler_managers_total",
	"loki_ruler_config_last_reload_successful",
	"loki_prometheus_rule_evaluations_total",
	"loki_prometheus_rule_evaluation_failures_total",
	"loki_prometheus_rule_group_iterations_total",
	"loki_prometheus_rule_group_iterations_missed_total",
	"loki_prometheus_rule_group_last_evaluation_timestamp_seconds",
	"loki_prometheus_rule_group_last_duration_seconds",
	"loki_prometheus_rule_group_interval_seconds",
	"loki_prometheus_rule_group_rules",
	"loki_prometheus_notifications_sent_total",
	"loki_prometheus_notifications_errors_total",
	"loki_prometheus_notifications_dropped_total",
	"loki_prometheus_notifications_queue_length",
	"loki_prometheus_notifications_queue_capacity",
	"loki_prometheus_notifications_alertmanagers_discovered",
	"loki_ruler_wal_prometheus_remote_storage_samples_total",
	"loki_ruler_wal_prometheus_remote_storage_samples_failed_total",
	"loki_ruler_wal_prometheus_remote_storage_samples_retried_total",
	"loki_ruler_wal_prometheus_remote_storage_samples_pending",
	"loki_ruler_wal_prometheus_remote_storage_highest_timestamp_in_seconds",
	"loki_ruler_wal_prometheus_remote_storage_queue_highest_sent_timestamp_seconds",
}

// Sync reasons of loki_ruler_sync_rules_total: Loki's initial and
// periodic syncs, and vloki's own after a write through the API (Loki
// has none: it loads such writes at its next periodic sync).
const (
	syncInitial   = "initial"
	syncPeriodic  = "periodic"
	syncAPIChange = "api-change"
)

func newSyncCounter() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loki_ruler_sync_rules_total",
		Help: "Total number of times the ruler sync operation triggered."}, []string{"reason"})
}

// tenantRegisterer registers a tenant's collectors under a prefix and a
// tenant label, as Loki does, and keeps them so that they all go when the
// tenant's manager stops (Prometheus' notifier never unregisters its
// own). A collector that fails to register is logged, not a panic:
// MustRegister is what Prometheus' notifier and remote storage call.
type tenantRegisterer struct {
	reg        prometheus.Registerer // nil: nothing is registered
	log        *slog.Logger
	mu         sync.Mutex
	collectors []prometheus.Collector
}

func newTenantRegisterer(reg prometheus.Registerer, prefix, label, tenant string, log *slog.Logger) *tenantRegisterer {
	if reg == nil {
		return &tenantRegisterer{log: log}
	}
	return &tenantRegisterer{log: log,
		reg: prometheus.WrapRegistererWith(prometheus.Labels{label: tenant}, prometheus.WrapRegistererWithPrefix(prefix, reg))}
}

func (r *tenantRegisterer) Register(c prometheus.Collector) error {
	if r.reg == nil {
		return nil
	}
	if err := r.reg.Register(c); err != nil {
		return err
	}
	r.mu.Lock()
	r.collectors = append(r.collectors, c)
	r.mu.Unlock()
	return nil
}

func (r *tenantRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			r.log.Error("ruler: registering metrics", "err", err)
		}
	}
}

// Unregister removes c now; it stays listed, and unregistering it again
// at the end does nothing.
func (r *tenantRegisterer) Unregister(c prometheus.Collector) bool {
	if r.reg == nil {
		return false
	}
	return r.reg.Unregister(c)
}

// unregisterAll removes what is still registered.
func (r *tenantRegisterer) unregisterAll() {
	r.mu.Lock()
	cs := r.collectors
	r.collectors = nil
	r.mu.Unlock()
	for _, c := range cs {
		r.reg.Unregister(c)
	}
}
