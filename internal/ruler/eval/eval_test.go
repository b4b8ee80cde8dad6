package eval

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/prompb"
	"github.com/prometheus/prometheus/rules"

	"github.com/vloki/vloki/internal/edge/tenant"
	vmodel "github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/ruler/rulestore"
)

// fakeEngine answers every instant query with res or err, and notes the
// queries.
type fakeEngine struct {
	mu      sync.Mutex
	res     *engine.Result
	err     error
	tenants []tenant.ID
	queries []string
}

func (f *fakeEngine) Instant(_ context.Context, t tenant.ID, req engine.InstantRequest) (*engine.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tenants = append(f.tenants, t)
	f.queries = append(f.queries, req.Expr.String())
	return f.res, f.err
}

func vectorResult(v float64, ls ...vmodel.Label) *engine.Result {
	return &engine.Result{Metric: &metric.Result{Kind: metric.Vector,
		Series: []vmodel.Series{{Metric: ls, Points: []vmodel.Point{{TimestampMs: 1000, Value: v}}}}}}
}

func TestQueryFuncResults(t *testing.T) {
	ts := time.Unix(1000, 0)
	tn := tenant.ID{AccountID: 7}
	f := &fakeEngine{res: vectorResult(3, vmodel.Label{Name: "app", Value: "x"}, vmodel.Label{Name: "a", Value: "1"})}
	waited := 0
	q := QueryFunc(f, tn, func(_ context.Context, got tenant.ID) error {
		if got == tn {
			waited++
		}
		return nil
	})
	v, err := q(context.Background(), `sum by (app) (count_over_time({app="x"}[5m]))`, ts)
	if err != nil || len(v) != 1 || v[0].F != 3 || v[0].T != ts.UnixMilli() || v[0].Metric.String() != `{a="1", app="x"}` {
		t.Fatalf("vector: %v %v", v, err)
	}
	if f.tenants[0] != tn || waited != 1 {
		t.Errorf("tenant %v, waited %d", f.tenants[0], waited)
	}

	f.res = &engine.Result{Metric: &metric.Result{Kind: metric.Scalar, Scalar: vmodel.Point{TimestampMs: 1000, Value: 2}}}
	v, err = q(context.Background(), `vector(2)`, ts)
	if err != nil || len(v) != 1 || v[0].F != 2 || v[0].T != ts.UnixMilli() || v[0].Metric.Len() != 0 {
		t.Fatalf("scalar: %v %v", v, err)
	}

	// Loki's texts (reference §2.3).
	if _, err := q(context.Background(), `{app="x"} |= "e"`, ts); err == nil || err.Error() != "rule result is not a vector or scalar" {
		t.Errorf("log query: %v", err)
	}
	f.res = &engine.Result{Metric: &metric.Result{Kind: metric.Matrix}}
	if _, err := q(context.Background(), `count_over_time({app="x"}[5m])`, ts); err == nil || err.Error() != "rule result is not a vector or scalar" {
		t.Errorf("matrix: %v", err)
	}
	f.res, f.err = nil, errors.New("boom")
	if _, err := q(context.Background(), `count_over_time({app="x"}[5m])`, ts); err == nil || err.Error() != "rule evaluation failed: boom" {
		t.Errorf("engine error: %v", err)
	}
}

func TestExprPrintsLokisLogQL(t *testing.T) {
	e, err := (&loader{}).Parse(`sum(count_over_time({app="x"}[5m]))>0`)
	if err != nil {
		t.Fatal(err)
	}
	if e.String() != `(sum(count_over_time({app="x"}[5m])) > 0)` {
		t.Errorf("String() = %s", e.String())
	}
	if _, err := (&loader{}).Parse(`sum(`); err == nil {
		t.Error("bad LogQL parsed")
	}
}

func TestGroupFileAndSlot(t *testing.T) {
	if f := GroupFile("/rules", "team-a", "ns/with space"); f != "/rules/team-a/ns%2Fwith%20space" {
		t.Errorf("GroupFile = %s", f)
	}
	iv := time.Minute
	a := SlotOffset("/rules", "t", "ns", "g", iv)
	if a < 0 || a >= iv {
		t.Fatalf("offset %v outside the interval", a)
	}
	if SlotOffset("/rules", "t", "ns", "g", iv) != a {
		t.Error("offset not stable")
	}
	differs := 0
	for _, o := range []time.Duration{SlotOffset("/loki/rules-temp", "t", "ns", "g", iv), SlotOffset("/rules", "u", "ns", "g", iv),
		SlotOffset("/rules", "t", "ns2", "g", iv), SlotOffset("/rules", "t", "ns", "g2", iv)} {
		if o != a {
			differs++
		}
	}
	if differs < 3 {
		t.Errorf("rule path, tenant, namespace and group should all move the slot (%d of 4 did)", differs)
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestEvaluatorRunsStoredRulesInTheirSlots(t *testing.T) {
	store, err := rulestore.Open(t.TempDir(), false, quiet())
	if err != nil {
		t.Fatal(err)
	}
	iv := 200 * time.Millisecond
	g := rulestore.Group{Name: "g", Rules: []rulestore.Rule{
		{Alert: "A", Expr: `sum(count_over_time({app="x"}[5m])) > 0`, Labels: map[string]string{"severity": "page"}},
		{Record: "r", Expr: `sum(count_over_time({app="x"}[5m]))`},
	}}
	if err := store.SetGroup("t1", "ns", g); err != nil {
		t.Fatal(err)
	}
	f := &fakeEngine{res: vectorResult(5)}
	reg := prometheus.NewRegistry()
	ev := New(Options{Store: store, Engine: f, Tenant: func(string) tenant.ID { return tenant.ID{AccountID: 1} },
		RulePath: "/rules", EvaluationInterval: iv, PollInterval: time.Hour, ForGracePeriod: 10 * time.Minute, Log: quiet(),
		Registerer: reg})
	store.OnChange = ev.Changed
	ev.Start()
	defer ev.Stop()

	eg := ev.Group("t1", "ns", "g")
	if eg == nil {
		t.Fatal("group not loaded")
	}
	if eg.File() != "/rules/t1/ns" || eg.Interval() != iv {
		t.Errorf("group %s every %v", eg.File(), eg.Interval())
	}
	// The manager's slots are SlotOffset's.
	now := time.Now()
	if got := time.Duration(eg.EvalTimestamp(now.UnixNano()).UnixNano() % int64(iv)); got != SlotOffset("/rules", "t1", "ns", "g", iv) {
		t.Errorf("slot %v, SlotOffset %v", got, SlotOffset("/rules", "t1", "ns", "g", iv))
	}
	deadline := time.Now().Add(5 * time.Second)
	var ar *rules.AlertingRule
	for time.Now().Before(deadline) {
		if as := ev.AlertingRules("t1"); len(as) == 1 && as[0].State() == rules.StateFiring {
			ar = as[0]
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ar == nil {
		t.Fatal("alert not firing")
	}
	if ar.Health() != rules.HealthGood {
		t.Errorf("health %v %v", ar.Health(), ar.LastError())
	}
	alerts := ar.ActiveAlerts()
	if len(alerts) != 1 || alerts[0].Labels.String() != `{alertname="A", severity="page"}` || alerts[0].Value != 5 {
		t.Errorf("alerts %+v", alerts)
	}
	// An evaluation time is a slot.
	if ts := eg.GetLastEvaluation(); ts.IsZero() {
		t.Error("no last evaluation")
	}

	// Loki's metric names, per tenant (user) and group (file;name).
	if n := evaluations(t, reg, `rule_group="/rules/t1/ns;g",user="t1"`); n < 2 {
		t.Errorf("loki_prometheus_rule_evaluations_total = %v", n)
	}
	if n := gauge(t, reg, "loki_ruler_managers_total", ""); n != 1 {
		t.Errorf("loki_ruler_managers_total = %v", n)
	}
	if n := gauge(t, reg, "loki_ruler_config_last_reload_successful", `user="t1"`); n != 1 {
		t.Errorf("loki_ruler_config_last_reload_successful = %v", n)
	}

	// A failing query: health err with Loki's text.
	f.mu.Lock()
	f.res, f.err = nil, errors.New("boom")
	f.mu.Unlock()
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && ar.Health() != rules.HealthBad {
		time.Sleep(20 * time.Millisecond)
	}
	if ar.Health() != rules.HealthBad || ar.LastError() == nil || ar.LastError().Error() != "rule evaluation failed: boom" {
		t.Errorf("after a failure: %v %v", ar.Health(), ar.LastError())
	}

	// Removing the tenant's last group stops its manager.
	if err := store.DeleteNamespace("t1", "ns"); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && ev.Group("t1", "ns", "g") != nil {
		time.Sleep(20 * time.Millisecond)
	}
	if ev.Group("t1", "ns", "g") != nil {
		t.Error("group still loaded after its namespace was deleted")
	}
	// The manager leaves the map before it stops and unregisters.
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && evaluations(t, reg, `user="t1"`) != -1 {
		time.Sleep(20 * time.Millisecond)
	}
	if n := evaluations(t, reg, `user="t1"`); n != -1 {
		t.Errorf("the stopped tenant's metrics are still exposed: %v", n)
	}
	if n := gauge(t, reg, "loki_ruler_managers_total", ""); n != 0 {
		t.Errorf("loki_ruler_managers_total = %v after the last rule went", n)
	}
	f.mu.Lock()
	for _, q := range f.queries {
		if !strings.Contains(q, `count_over_time({app="x"}[5m])`) {
			t.Errorf("query %s", q)
		}
	}
	f.mu.Unlock()
}

// evaluations is loki_prometheus_rule_evaluations_total of the series
// whose labels contain want, -1 when there is none.
func evaluations(t *testing.T, reg *prometheus.Registry, want string) float64 {
	t.Helper()
	return sample(t, reg, "loki_prometheus_rule_evaluations_total", want)
}

// gauge is the gauge's value for the series whose labels contain want,
// -1 when there is none.
func gauge(t *testing.T, reg *prometheus.Registry, name, want string) float64 {
	t.Helper()
	return sample(t, reg, name, want)
}

func sample(t *testing.T, reg *prometheus.Registry, name, want string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+"="+strconv.Quote(l.GetValue()))
			}
			if strings.Contains(strings.Join(ls, ","), want) {
				if m.GetGauge() != nil {
					return m.GetGauge().GetValue()
				}
				return m.GetCounter().GetValue()
			}
		}
	}
	return -1
}

func TestGeneratorURL(t *testing.T) {
	expr := `(sum(count_over_time({app="x"}[5m])) > 0)`
	got := GeneratorURL("", expr, "")
	want := "/explore?left=" + url.QueryEscape(`{"queries":[{"expr":"(sum(count_over_time({app=\"x\"}[5m])) \u003e 0)","queryType":"range"}]}`)
	if got != want {
		t.Errorf("without uid: %s\nwant %s", got, want)
	}
	got = GeneratorURL("https://g.example/grafana", expr, "P8E80F9AEF21F6940")
	want = "https://g.example/grafana/explore?left=" + url.QueryEscape(`{"queries":[{"expr":"(sum(count_over_time({app=\"x\"}[5m])) \u003e 0)","queryType":"range","datasource":{"type":"loki","uid":"P8E80F9AEF21F6940"}}]}`)
	if got != want {
		t.Errorf("with uid: %s\nwant %s", got, want)
	}
}

func TestAlertmanagerURLs(t *testing.T) {
	cfgs, targets, err := Alerting{AlertmanagerURL: "http://u:p@am1:9093/prefix/, https://am2", Timeout: 3 * time.Second}.alertmanagers()
	if err != nil || len(cfgs) != 2 {
		t.Fatal(cfgs, err)
	}
	if c := cfgs[0]; c.Scheme != "http" || c.PathPrefix != "/prefix" || c.HTTPClientConfig.BasicAuth == nil ||
		c.HTTPClientConfig.BasicAuth.Username != "u" || string(c.HTTPClientConfig.BasicAuth.Password) != "p" || time.Duration(c.Timeout) != 3*time.Second {
		t.Errorf("first: %+v", c)
	}
	if c := cfgs[1]; c.Scheme != "https" || c.PathPrefix != "" || c.HTTPClientConfig.BasicAuth != nil {
		t.Errorf("second: %+v", c)
	}
	if string(targets["config-0"][0].Targets[0]["__address__"]) != "am1:9093" || string(targets["config-1"][0].Targets[0]["__address__"]) != "am2" {
		t.Errorf("targets: %v", targets)
	}
	if _, _, err := (Alerting{AlertmanagerURL: "am1:9093"}).alertmanagers(); err == nil {
		t.Error("a URL without host accepted")
	}
}

// TestAlertsSentToAlertmanager: Loki's payload on Alertmanager's v2 API,
// with the tenant in X-Scope-OrgID (reference §2.6).
func TestAlertsSentToAlertmanager(t *testing.T) {
	type posted struct {
		path, tenant string
		alerts       []map[string]any
	}
	got := make(chan posted, 10)
	am := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var alerts []map[string]any
		_ = json.NewDecoder(r.Body).Decode(&alerts)
		got <- posted{r.URL.Path, r.Header.Get("X-Scope-OrgID"), alerts}
	}))
	defer am.Close()
	store, err := rulestore.Open(t.TempDir(), false, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetGroup("t1", "ns", rulestore.Group{Name: "g", Rules: []rulestore.Rule{
		{Alert: "A", Expr: `sum(count_over_time({app="x"}[5m])) > 0`, Annotations: map[string]string{"v": "{{ $value }}", "c": "{{ $externalLabels.cluster }}"}}}}); err != nil {
		t.Fatal(err)
	}
	iv := 200 * time.Millisecond
	ev := New(Options{Store: store, Engine: &fakeEngine{res: vectorResult(5)}, Tenant: func(string) tenant.ID { return tenant.ID{} },
		RulePath: "/rules", EvaluationInterval: iv, PollInterval: time.Hour, ResendDelay: time.Minute, ForGracePeriod: 10 * time.Minute,
		ExternalURL: "http://ext", Log: quiet(), Alerting: Alerting{AlertmanagerURL: am.URL + "/am", QueueCapacity: 100, DatasourceUID: "uid1",
			ExternalLabels: map[string]string{"cluster": "c1", "alertname": "not this"}}})
	if err := ev.Check(); err != nil {
		t.Fatal(err)
	}
	ev.Start()
	defer ev.Stop()
	select {
	case p := <-got:
		if p.path != "/am/api/v2/alerts" || p.tenant != "t1" || len(p.alerts) != 1 {
			t.Fatalf("posted %+v", p)
		}
		a := p.alerts[0]
		labels, _ := json.Marshal(a["labels"])
		annotations, _ := json.Marshal(a["annotations"])
		// External labels: added where absent (§2.6), and in templates.
		if string(labels) != `{"alertname":"A","cluster":"c1"}` || string(annotations) != `{"c":"c1","v":"5"}` ||
			a["generatorURL"] != GeneratorURL("http://ext", `(sum(count_over_time({app="x"}[5m])) > 0)`, "uid1") {
			t.Errorf("alert %v", a)
		}
		starts, err1 := time.Parse(time.RFC3339Nano, a["startsAt"].(string))
		ends, err2 := time.Parse(time.RFC3339Nano, a["endsAt"].(string))
		// endsAt is ValidUntil: 4·max(resend_delay, interval) after the evaluation.
		if err1 != nil || err2 != nil || ends.Sub(starts) != 4*time.Minute {
			t.Errorf("startsAt %v, endsAt %v", a["startsAt"], a["endsAt"])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing posted to Alertmanager")
	}
}

// TestRecordedSamplesRemoteWritten: remote write v1 through the tenant's
// WAL, X-Scope-OrgID set, the sample at the evaluation time (§2.5).
func TestRecordedSamplesRemoteWritten(t *testing.T) {
	type written struct {
		tenant string
		series []prompb.TimeSeries
	}
	got := make(chan written, 100)
	rw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		raw, err := snappy.Decode(nil, b)
		var req prompb.WriteRequest
		if err == nil {
			err = req.Unmarshal(raw)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got <- written{r.Header.Get("X-Scope-OrgID"), req.Timeseries}
	}))
	defer rw.Close()
	store, err := rulestore.Open(t.TempDir(), false, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetGroup("t1", "ns", rulestore.Group{Name: "g", Rules: []rulestore.Rule{
		{Record: "app:lines:sum", Expr: `sum by (app) (count_over_time({app="x"}[5m]))`, Labels: map[string]string{"team": "a"}}}}); err != nil {
		t.Fatal(err)
	}
	ev := New(Options{Store: store, Engine: &fakeEngine{res: vectorResult(5, vmodel.Label{Name: "app", Value: "x"})},
		Tenant: func(string) tenant.ID { return tenant.ID{} }, RulePath: "/rules", EvaluationInterval: 200 * time.Millisecond,
		PollInterval: time.Hour, Log: quiet(),
		RemoteWrite: RemoteWrite{URL: rw.URL + "/api/v1/write", Dir: t.TempDir(), BatchSendDeadline: 100 * time.Millisecond}})
	if err := ev.Check(); err != nil {
		t.Fatal(err)
	}
	ev.Start()
	defer ev.Stop()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case w := <-got:
			if w.tenant != "t1" {
				t.Fatalf("X-Scope-OrgID %q", w.tenant)
			}
			for _, ts := range w.series {
				var ls []string
				for _, l := range ts.Labels {
					ls = append(ls, l.Name+"="+l.Value)
				}
				if strings.Join(ls, ",") == "__name__=app:lines:sum,app=x,team=a" && len(ts.Samples) > 0 && ts.Samples[0].Value == 5 {
					if ts.Samples[0].Timestamp%200 != int64(SlotOffset("/rules", "t1", "ns", "g", 200*time.Millisecond)/time.Millisecond) {
						t.Errorf("sample at %d, not in the group's slot", ts.Samples[0].Timestamp)
					}
					return
				}
			}
		case <-deadline:
			t.Fatal("no recorded sample written")
		}
	}
}
