package rulertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// AlertmanagerBinary is Debian's prometheus-alertmanager (0.25 on
// bookworm), installed by scripts/test-deps.sh.
const AlertmanagerBinary = "/usr/bin/prometheus-alertmanager"

// amConfig routes every alert, each in its own group, to the webhook at
// once, and repeats no notification during a test.
const amConfig = `route:
  receiver: hook
  group_by: ['...']
  group_wait: 0s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: %q
        send_resolved: true
`

// Alertmanager is a running Alertmanager whose notifications go to
// Webhook.
type Alertmanager struct {
	URL     string
	Webhook *Webhook
	p       *process
}

// StartAlertmanager starts Alertmanager for the test, without clustering
// (an empty cluster address: no gossip on 0.0.0.0:9094). The test fails
// when Alertmanager is not installed.
func StartAlertmanager(t testing.TB) *Alertmanager {
	t.Helper()
	if _, err := os.Stat(AlertmanagerBinary); err != nil {
		t.Fatalf("Alertmanager is not installed (%v): run scripts/test-deps.sh", err)
	}
	hook := &Webhook{}
	srv := httptest.NewServer(hook)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "alertmanager.yml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, amConfig, srv.URL+"/hook"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	am := &Alertmanager{URL: "http://" + addr, Webhook: hook}
	am.p = newProcess(t, "alertmanager", am.URL+"/-/ready", []string{AlertmanagerBinary, "--config.file=" + cfg,
		"--storage.path=" + filepath.Join(dir, "data"), "--web.listen-address=" + addr, "--cluster.listen-address="})
	if err := am.p.start(); err != nil {
		t.Fatal(err)
	}
	return am
}

// Alert is an alert as Alertmanager lists it (GET /api/v2/alerts) or
// posts it to a webhook (where Status is a string, "firing" or
// "resolved"; it is in State here).
type Alert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Fingerprint  string            `json:"fingerprint"`
	Status       struct {
		State string `json:"state"`
	} `json:"status"`
}

// Alerts lists Alertmanager's alerts matching every filter (Alertmanager
// matchers such as `replica="0"`).
func (am *Alertmanager) Alerts(t testing.TB, filters ...string) []Alert {
	t.Helper()
	resp, err := http.Get(am.URL + "/api/v2/alerts?" + url.Values{"filter": filters}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []Alert
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("alertmanager alerts: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Webhook records the notifications Alertmanager sends it.
type Webhook struct {
	mu     sync.Mutex
	alerts []WebhookAlert
}

// WebhookAlert is one alert of a webhook notification.
type WebhookAlert struct {
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
}

func (w *Webhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var msg struct {
		Alerts []WebhookAlert `json:"alerts"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	w.mu.Lock()
	w.alerts = append(w.alerts, msg.Alerts...)
	w.mu.Unlock()
}

// Alerts are the alerts notified so far, oldest first.
func (w *Webhook) Alerts() []WebhookAlert {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]WebhookAlert(nil), w.alerts...)
}
