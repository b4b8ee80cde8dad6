package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/prompb"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/ruler/eval"
	"github.com/vloki/vloki/internal/testing/rulertest"
)

// Rule evaluation as Loki v3.7.8's ruler does it (reference
// loki-ruler.md §1.3, §2.2, §2.3): texts are Loki's or Prometheus'
// rules package's, the values formatted as Loki formats them.

type evalAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
	ActiveAt    *time.Time        `json:"activeAt"`
	Value       string            `json:"value"`
}

type evalRule struct {
	State          string            `json:"state"`
	Name           string            `json:"name"`
	Query          string            `json:"query"`
	Labels         map[string]string `json:"labels"`
	Alerts         []evalAlert       `json:"alerts"`
	Health         string            `json:"health"`
	LastError      string            `json:"lastError"`
	Type           string            `json:"type"`
	LastEvaluation time.Time         `json:"lastEvaluation"`
	EvaluationTime float64           `json:"evaluationTime"`
}

type evalGroup struct {
	Name           string     `json:"name"`
	File           string     `json:"file"`
	Rules          []evalRule `json:"rules"`
	Interval       float64    `json:"interval"`
	LastEvaluation time.Time  `json:"lastEvaluation"`
}

const evalGroups = `name: eval
rules:
  - alert: Lines
    expr: sum(count_over_time({app="x"}[5m])) > 0
    for: 0s
    labels:
      severity: page
    annotations:
      summary: '{{ $value }} lines'
      other: '{{ with query "sum(count_over_time({app=\"y\"}[5m]))" }}{{ . | first | value | humanize }}{{ end }} in y'
  - record: app:lines:count5m
    expr: sum by (app) (count_over_time({app=~"x|y"}[5m]))
  - alert: LogQuery
    expr: '{app="x"}'
`

const limitedGroup = `name: limited
limit: 1
rules:
  - record: app:lines:limited
    expr: sum by (app) (count_over_time({app=~"x|y"}[5m]))
`

// amCapture records what is posted to it as an Alertmanager.
type amCapture struct {
	mu    sync.Mutex
	posts []amPost
}

type amPost struct {
	at           time.Time
	path, tenant string
	alerts       []map[string]any
}

func (c *amCapture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var alerts []map[string]any
	_ = json.NewDecoder(r.Body).Decode(&alerts)
	c.mu.Lock()
	c.posts = append(c.posts, amPost{time.Now(), r.URL.Path, r.Header.Get("X-Scope-OrgID"), alerts})
	c.mu.Unlock()
}

// since is the posts received after t.
func (c *amCapture) since(t time.Time) []amPost {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []amPost
	for _, p := range c.posts {
		if p.at.After(t) {
			out = append(out, p)
		}
	}
	return out
}

// rwCapture records the series remote-written to it, by tenant, and
// passes each request on to the receiver (same path and query).
type rwCapture struct {
	mu      sync.Mutex
	series  map[string][]string // tenant → "labels value"
	forward string
}

// readRemoteWrite decodes a remote write v1 request as a receiver does
// (snappy protobuf), answering 400 when it is not one; it returns the
// body as it came too.
func readRemoteWrite(w http.ResponseWriter, r *http.Request) (prompb.WriteRequest, []byte, bool) {
	var req prompb.WriteRequest
	b, _ := io.ReadAll(r.Body)
	raw, err := snappy.Decode(nil, b)
	if err == nil {
		err = req.Unmarshal(raw)
	}
	if err != nil || r.Header.Get("Content-Encoding") != "snappy" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return req, b, false
	}
	return req, b, true
}

func (c *rwCapture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, b, ok := readRemoteWrite(w, r)
	if !ok || !passOn(w, r, c.forward+r.URL.RequestURI(), b) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ts := range req.Timeseries {
		var ls []string
		for _, l := range ts.Labels {
			ls = append(ls, l.Name+"="+l.Value)
		}
		for _, s := range ts.Samples {
			c.series[r.Header.Get("X-Scope-OrgID")] = append(c.series[r.Header.Get("X-Scope-OrgID")], strings.Join(ls, ",")+" "+strconv.FormatFloat(s.Value, 'g', -1, 64))
		}
	}
}

func (c *rwCapture) has(tenant, sample string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.series[tenant], sample)
}

// rulerTargetsEach is rulerTargets with a change per target, given the
// target's index.
func rulerTargetsEach(t *testing.T, change func(int, *config.Ruler)) []target {
	i := 0
	targets, _ := rulerTargets(t, func(r *config.Ruler) { change(i, r); i++ })
	return targets
}

// TestRulerEvaluates runs the ruler with real outputs: notifications go to
// Alertmanager and to a capture, recorded samples through a capture to
// VictoriaMetrics.
func TestRulerEvaluates(t *testing.T) {
	vm := rulertest.StartVictoriaMetrics(t)
	realAM := rulertest.StartAlertmanager(t)
	am := &amCapture{}
	amSrv := httptest.NewServer(am)
	t.Cleanup(amSrv.Close)
	rw := &rwCapture{series: map[string][]string{}, forward: vm.URL}
	rwSrv := httptest.NewServer(rw)
	t.Cleanup(rwSrv.Close)
	// Each target marks its outputs: alerts with the external label
	// replica=<i> (Alertmanager would merge equal label sets), samples
	// with src=<i> (VictoriaMetrics ignores X-Scope-OrgID).
	targets := rulerTargetsEach(t, func(i int, r *config.Ruler) {
		r.EnableEvaluation = true
		r.EvaluationInterval = time.Second
		r.AlertmanagerURL = realAM.URL + "," + amSrv.URL + "/am"
		r.ExternalLabels = map[string]string{"replica": strconv.Itoa(i)}
		r.RemoteWrite.Enabled, r.WAL.Dir = true, t.TempDir()
		r.RemoteWrite.URL = rwSrv.URL + strings.TrimPrefix(vm.WriteURL(strconv.Itoa(i)), vm.URL)
	})
	for i, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			replica := strconv.Itoa(i)
			ten := "eval-" + strings.NewReplacer(".", "", "-", "").Replace(tg.name)
			now := time.Now()
			tg.pushJSON(t, ten, jsonPush(map[string]string{"app": "x"}, entry{ns(now.Add(-10 * time.Second)), "a"}, entry{ns(now.Add(-9 * time.Second)), "b"}))
			tg.pushJSON(t, ten, jsonPush(map[string]string{"app": "y"}, entry{ns(now.Add(-10 * time.Second)), "c"}))
			expectAnswer(t, "create eval", tg.rulerDo(t, "POST", "/loki/api/v1/rules/ns1", ten, evalGroups), 202, appJSON, accepted)
			expectAnswer(t, "create limited", tg.rulerDo(t, "POST", "/loki/api/v1/rules/ns1", ten, limitedGroup), 202, appJSON, accepted)

			var groups []evalGroup
			evaluated := func() bool {
				r := tg.rulerDo(t, "GET", "/prometheus/api/v1/rules", ten, "")
				if r.status != 200 || r.header.Get("Content-Type") != appJSON {
					t.Fatalf("rules: %d %s", r.status, r.body)
				}
				var body struct {
					Status string `json:"status"`
					Data   struct {
						Groups []evalGroup `json:"groups"`
					} `json:"data"`
				}
				if err := json.Unmarshal(r.body, &body); err != nil {
					t.Fatal(err)
				}
				groups = body.Data.Groups
				for _, g := range groups {
					for _, rl := range g.Rules {
						if rl.Health == "unknown" {
							return false
						}
					}
				}
				return len(groups) == 2 && groups[0].Rules[0].State == "firing"
			}
			deadline := time.Now().Add(20 * time.Second)
			for !evaluated() {
				if time.Now().After(deadline) {
					t.Fatalf("rules not evaluated in time: %+v", groups)
				}
				time.Sleep(200 * time.Millisecond)
			}
			// Groups in name order within the namespace: eval, limited.
			eg, lg := groups[0], groups[1]
			if eg.Name != "eval" || eg.File != "ns1" || eg.Interval != 1 || eg.LastEvaluation.IsZero() || lg.Name != "limited" {
				t.Fatalf("groups: %+v", groups)
			}
			lines, record, logQuery := eg.Rules[0], eg.Rules[1], eg.Rules[2]
			if lines.Health != "ok" || lines.LastError != "" || lines.Type != "alerting" || lines.LastEvaluation.IsZero() || len(lines.Alerts) != 1 {
				t.Fatalf("alerting rule: %+v", lines)
			}
			a := lines.Alerts[0]
			wantLabels := map[string]string{"alertname": "Lines", "severity": "page"}
			// $value is the sample, and value Loki's 'e' formatting (§1.3);
			// the query template function runs LogQL (§2.3).
			if !reflect.DeepEqual(a.Labels, wantLabels) || a.State != "firing" || a.Value != "2e+00" ||
				a.Annotations["summary"] != "2 lines" || a.Annotations["other"] != "1 in y" || a.ActiveAt == nil || a.ActiveAt.Location() != time.UTC {
				t.Errorf("alert: %+v", a)
			}
			// activeAt is the evaluation's slot: Loki's offset for the
			// group's identity within each 1s interval (§2.2).
			if a.ActiveAt != nil {
				if got, want := time.Duration(a.ActiveAt.UnixNano()%int64(time.Second)), eval.SlotOffset("/rules", ten, "ns1", "eval", time.Second); got != want {
					t.Errorf("alert active at offset %v of its interval, slot offset %v", got, want)
				}
			}
			if record.Health != "ok" || record.LastError != "" || record.Type != "recording" || record.LastEvaluation.IsZero() {
				t.Errorf("recording rule: %+v", record)
			}
			if logQuery.Health != "err" || logQuery.LastError != "rule result is not a vector or scalar" || len(logQuery.Alerts) != 0 {
				t.Errorf("log query rule: %+v", logQuery)
			}
			// The group limit, as Prometheus' rules package words it.
			if l := lg.Rules[0]; l.Health != "err" || l.LastError != "exceeded limit of 1 with 2 series" {
				t.Errorf("limited rule: %+v", l)
			}

			r := tg.rulerDo(t, "GET", "/prometheus/api/v1/alerts", ten, "")
			if r.status != 200 || r.header.Get("Content-Type") != appJSON || !strings.HasPrefix(string(r.body), `{"status":"success","data":{"alerts":[`) ||
				!strings.HasSuffix(string(r.body), `]},"errorType":"","error":""}`) {
				t.Fatalf("alerts: %d %s", r.status, r.body)
			}
			var alerts struct {
				Data struct {
					Alerts []evalAlert `json:"alerts"`
				} `json:"data"`
			}
			if err := json.Unmarshal(r.body, &alerts); err != nil {
				t.Fatal(err)
			}
			if len(alerts.Data.Alerts) != 1 || !reflect.DeepEqual(alerts.Data.Alerts[0].Labels, wantLabels) || alerts.Data.Alerts[0].State != "firing" ||
				alerts.Data.Alerts[0].Value != "2e+00" {
				t.Errorf("alerts: %s", r.body)
			}
			// The firing alert reached Alertmanager (§2.6).
			deadline = time.Now().Add(10 * time.Second)
			for {
				posts := am.since(now)
				if len(posts) > 0 {
					p := posts[0]
					if p.path != "/am/api/v2/alerts" || p.tenant != ten || len(p.alerts) != 1 {
						t.Fatalf("posted to Alertmanager: %+v", p)
					}
					labels, _ := json.Marshal(p.alerts[0]["labels"])
					if string(labels) != `{"alertname":"Lines","replica":"`+replica+`","severity":"page"}` || p.alerts[0]["startsAt"] == nil || p.alerts[0]["endsAt"] == nil ||
						!strings.HasPrefix(p.alerts[0]["generatorURL"].(string), "/explore?left=") {
						t.Errorf("alert posted: %v", p.alerts[0])
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("nothing posted to Alertmanager")
				}
				time.Sleep(100 * time.Millisecond)
			}
			checkAlertmanager(t, realAM, replica, a)
			// The recorded samples, and ALERTS, were remote-written (§2.5),
			// without external labels, with the tenant's X-Scope-OrgID.
			// Prometheus' queue sends within batch_send_deadline (5s).
			deadline = time.Now().Add(30 * time.Second)
			for _, want := range []string{"__name__=app:lines:count5m,app=x 2", "__name__=app:lines:count5m,app=y 1",
				"__name__=ALERTS,alertname=Lines,alertstate=firing,severity=page 1"} {
				for !rw.has(ten, want) {
					if time.Now().After(deadline) {
						rw.mu.Lock()
						t.Fatalf("not remote-written: %s; got %v", want, rw.series[ten])
					}
					time.Sleep(100 * time.Millisecond)
				}
			}
			if a.ActiveAt != nil {
				checkExported(t, vm, replica, eval.SlotOffset("/rules", ten, "ns1", "eval", time.Second), *a.ActiveAt)
			}
			rulerMetricsExposed(t, tg, ten)
			// Another tenant sees none of them.
			expectAnswer(t, "other tenant", tg.rulerDo(t, "GET", "/prometheus/api/v1/alerts", "other", ""), 200, appJSON,
				`{"status":"success","data":{"alerts":[]},"errorType":"","error":""}`)

			// Deleting the namespace stops its evaluation and its alerts.
			expectAnswer(t, "delete", tg.rulerDo(t, "DELETE", "/loki/api/v1/rules/ns1", ten, ""), 202, appJSON, accepted)
			deadline = time.Now().Add(10 * time.Second)
			for {
				r := tg.rulerDo(t, "GET", "/prometheus/api/v1/alerts", ten, "")
				if string(r.body) == `{"status":"success","data":{"alerts":[]},"errorType":"","error":""}` {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("alerts after delete: %s", r.body)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// checkAlertmanager: Alertmanager holds the firing alert with the
// tenant's labels (and the external label) and annotations, from its
// firing time, and notified its webhook of it.
func checkAlertmanager(t *testing.T, am *rulertest.Alertmanager, replica string, fired evalAlert) {
	t.Helper()
	labels := map[string]string{"alertname": "Lines", "severity": "page", "replica": replica}
	annotations := map[string]string{"summary": "2 lines", "other": "1 in y"}
	var listed []rulertest.Alert
	rulertest.WaitFor(t, "alert in Alertmanager", 10*time.Second, func() bool {
		listed = am.Alerts(t, `replica="`+replica+`"`)
		return len(listed) > 0
	})
	if l := listed[0]; len(listed) != 1 || !reflect.DeepEqual(l.Labels, labels) || !reflect.DeepEqual(l.Annotations, annotations) ||
		l.Status.State != "active" || !strings.HasPrefix(l.GeneratorURL, "/explore?left=") || !l.EndsAt.After(l.StartsAt) ||
		fired.ActiveAt == nil || !l.StartsAt.Equal(fired.ActiveAt.Truncate(time.Millisecond)) {
		t.Errorf("Alertmanager lists %+v; the rule's alert %+v", listed, fired)
	}
	var hooked []rulertest.WebhookAlert
	rulertest.WaitFor(t, "alert at Alertmanager's webhook", 10*time.Second, func() bool {
		hooked = slices.DeleteFunc(am.Webhook.Alerts(), func(w rulertest.WebhookAlert) bool { return w.Labels["replica"] != replica })
		return len(hooked) > 0
	})
	if w := hooked[0]; w.Status != "firing" || !reflect.DeepEqual(w.Labels, labels) || !reflect.DeepEqual(w.Annotations, annotations) {
		t.Errorf("webhook got %+v", hooked)
	}
}

// checkExported: VictoriaMetrics has the recorded series, ALERTS and
// ALERTS_FOR_STATE, without external labels, each sample at a slot of
// the group (its offset within each second), once. The recorded series
// start at the first evaluation, the one that fired the alert; ALERTS
// and ALERTS_FOR_STATE once the rules manager has restored the group's
// for-state (after its second evaluation).
func checkExported(t *testing.T, vm *rulertest.VictoriaMetrics, src string, offset time.Duration, firedAt time.Time) {
	t.Helper()
	for _, want := range []struct {
		labels        map[string]string
		value         float64
		fromFirstSlot bool
	}{
		{map[string]string{"__name__": "app:lines:count5m", "app": "x"}, 2, true},
		{map[string]string{"__name__": "app:lines:count5m", "app": "y"}, 1, true},
		{map[string]string{"__name__": "ALERTS", "alertname": "Lines", "alertstate": "firing", "severity": "page"}, 1, false},
		{map[string]string{"__name__": "ALERTS_FOR_STATE", "alertname": "Lines", "severity": "page"}, float64(firedAt.Unix()), false},
	} {
		want.labels["src"] = src
		match := `{__name__="` + want.labels["__name__"] + `",src="` + src + `",app="` + want.labels["app"] + `"}`
		var got []rulertest.Series
		rulertest.WaitFor(t, "exported "+match, 30*time.Second, func() bool {
			got = vm.Export(t, match)
			return len(got) > 0
		})
		s := got[0]
		if len(got) != 1 || !reflect.DeepEqual(s.Metric, want.labels) || s.Timestamps[0] < firedAt.UnixMilli() ||
			(want.fromFirstSlot && s.Timestamps[0] != firedAt.UnixMilli()) {
			t.Errorf("%s: exported %+v, want %v from %d", match, got, want.labels, firedAt.UnixMilli())
			continue
		}
		for k, ts := range s.Timestamps {
			if v := s.Values[k]; v == nil || *v != want.value || time.Duration(ts%1000)*time.Millisecond != offset.Truncate(time.Millisecond) ||
				(k > 0 && ts <= s.Timestamps[k-1]) {
				t.Errorf("%s: sample %d at %d (%v): want %v at slot offset %v, once", match, k, ts, v, want.value, offset)
			}
		}
	}
}
