package eval

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vloki/vloki/internal/edge/tenant"
	vmodel "github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/ruler/rulestore"
)

// TestMetricsAfterAnEvaluation: once a tenant's rules have been
// evaluated, notified and remote-written, every name of MetricNames is
// exposed with Loki's labels; syncs are counted by reason; the tenant's
// series go with its last rule.
func TestMetricsAfterAnEvaluation(t *testing.T) {
	notified, written := make(chan struct{}, 100), make(chan struct{}, 100)
	am := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { notified <- struct{}{} }))
	defer am.Close()
	rw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		written <- struct{}{}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rw.Close()
	store, err := rulestore.Open(t.TempDir(), false, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetGroup("t1", "ns", rulestore.Group{Name: "g", Rules: []rulestore.Rule{
		{Alert: "A", Expr: `sum(count_over_time({app="x"}[5m])) > 0`},
		{Record: "r", Expr: `sum by (app) (count_over_time({app="x"}[5m]))`}}}); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	ev := New(Options{Store: store, Engine: &fakeEngine{res: vectorResult(5, vmodel.Label{Name: "app", Value: "x"})},
		Tenant: func(string) tenant.ID { return tenant.ID{} }, RulePath: "/rules", EvaluationInterval: 200 * time.Millisecond,
		PollInterval: time.Hour, ForGracePeriod: 10 * time.Minute, Log: quiet(), Registerer: reg,
		Alerting:    Alerting{AlertmanagerURL: am.URL, QueueCapacity: 100},
		RemoteWrite: RemoteWrite{URL: rw.URL + "/api/v1/write", Dir: t.TempDir(), BatchSendDeadline: 100 * time.Millisecond}})
	if err := ev.Check(); err != nil {
		t.Fatal(err)
	}
	store.OnChange = ev.Changed
	ev.Start()
	defer ev.Stop()
	for what, ch := range map[string]chan struct{}{"notification": notified, "remote write": written} {
		select {
		case <-ch:
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s", what)
		}
	}
	exposed := seriesByName(t, reg)
	for _, name := range MetricNames {
		if len(exposed[name]) == 0 {
			t.Errorf("%s not exposed", name)
		}
	}
	// Loki's labels: user on the manager's and notifier's, tenant on
	// the remote write queue's, named <tenant>-rw (the URL's).
	for name, want := range map[string]string{
		"loki_prometheus_rule_evaluations_total":                 `rule_group="/rules/t1/ns;g",user="t1"`,
		"loki_prometheus_notifications_sent_total":               `alertmanager="` + am.URL + `/api/v2/alerts",user="t1"`,
		"loki_prometheus_notifications_queue_capacity":           `user="t1"`,
		"loki_ruler_wal_prometheus_remote_storage_samples_total": `remote_name="t1-rw",tenant="t1",url="` + rw.URL + `/api/v1/write"`,
	} {
		if !strings.Contains(strings.Join(exposed[name], " "), want) {
			t.Errorf("%s: %v, want %s", name, exposed[name], want)
		}
	}
	if n := sample(t, reg, "loki_prometheus_notifications_sent_total", `user="t1"`); n < 1 {
		t.Errorf("notifications sent %v", n)
	}
	if n := sample(t, reg, "loki_ruler_sync_rules_total", `reason="initial"`); n != 1 {
		t.Errorf("initial syncs %v", n)
	}

	// A write through the API syncs at once; the last rule's removal
	// takes the tenant's series with it.
	if err := store.DeleteNamespace("t1", "ns"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && tenantSeries(seriesByName(t, reg)) != "" {
		time.Sleep(20 * time.Millisecond)
	}
	if s := tenantSeries(seriesByName(t, reg)); s != "" {
		t.Errorf("the stopped tenant's series remain: %s", s)
	}
	if n := sample(t, reg, "loki_ruler_sync_rules_total", `reason="api-change"`); n < 1 {
		t.Errorf("api-change syncs %v", n)
	}
}

// seriesByName lists each gathered series' labels by name.
func seriesByName(t *testing.T, reg *prometheus.Registry) map[string][]string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+`="`+l.GetValue()+`"`)
			}
			out[mf.GetName()] = append(out[mf.GetName()], strings.Join(ls, ","))
		}
	}
	return out
}

// tenantSeries names a series still labelled with tenant t1.
func tenantSeries(byName map[string][]string) string {
	for name, series := range byName {
		for _, s := range series {
			if strings.Contains(s, `user="t1"`) || strings.Contains(s, `tenant="t1"`) {
				return name + "{" + s + "}"
			}
		}
	}
	return ""
}
