package config

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lokiRulerBlock is a ruler block written with the key names of Loki
// v3.7.8's configuration reference (the ruler block), every key vloki
// reads set away from its default.
const lokiRulerBlock = `ruler:
  external_url: https://grafana.example/
  datasource_uid: loki-uid
  external_labels:
    cluster: eu-1
  evaluation_interval: 30s
  poll_interval: 15s
  storage:
    type: local
    local:
      directory: /etc/loki/rules
  rule_path: /tmp/loki/rules-temp
  alertmanager_url: http://am-1:9093,http://am-2:9093/prefix
  notification_queue_capacity: 500
  notification_timeout: 3s
  for_outage_tolerance: 2h
  for_grace_period: 5m
  resend_delay: 2m
  enable_api: false
  wal:
    dir: /loki/ruler-wal
  remote_write:
    enabled: true
    add_org_id_header: false
    clients:
      vm:
        url: http://vm:8428/api/v1/write
        remote_timeout: 10s
        headers:
          X-Custom: a
        queue_config:
          capacity: 500
          max_samples_per_send: 100
          batch_send_deadline: 1s
          min_backoff: 100ms
          max_backoff: 1s
`

func loadYAML(t *testing.T, yml string, args ...string) (Config, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(append([]string{"-config.file", p}, args...), io.Discard)
}

// TestLokiRulerBlock: a Loki ruler block parses with Loki's key names
// into the values it sets.
func TestLokiRulerBlock(t *testing.T) {
	cfg, err := loadYAML(t, lokiRulerBlock)
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Ruler
	for _, c := range []struct {
		key       string
		got, want any
	}{
		{"external_url", r.ExternalURL, "https://grafana.example/"},
		{"datasource_uid", r.DatasourceUID, "loki-uid"},
		{"external_labels", r.ExternalLabels["cluster"], "eu-1"},
		{"evaluation_interval", r.EvaluationInterval, 30 * time.Second},
		{"poll_interval", r.PollInterval, 15 * time.Second},
		{"storage.type", r.Storage.Type, "local"},
		{"storage.local.directory", r.Storage.Local.Directory, "/etc/loki/rules"},
		{"rule_path", r.RulePath, "/tmp/loki/rules-temp"},
		{"alertmanager_url", r.AlertmanagerURL, "http://am-1:9093,http://am-2:9093/prefix"},
		{"notification_queue_capacity", r.NotificationQueueCapacity, 500},
		{"notification_timeout", r.NotificationTimeout, 3 * time.Second},
		{"for_outage_tolerance", r.ForOutageTolerance, 2 * time.Hour},
		{"for_grace_period", r.ForGracePeriod, 5 * time.Minute},
		{"resend_delay", r.ResendDelay, 2 * time.Minute},
		{"enable_api", r.EnableAPI, false},
		{"wal.dir", r.WAL.Dir, "/loki/ruler-wal"},
		{"remote_write.enabled", r.RemoteWrite.Enabled, true},
		{"remote_write.add_org_id_header", r.RemoteWrite.AddOrgIDHeader, false},
	} {
		if c.got != c.want {
			t.Errorf("ruler.%s = %v, want %v", c.key, c.got, c.want)
		}
	}
	clients, err := r.RemoteWrite.ClientConfigs()
	if err != nil || len(clients) != 1 {
		t.Fatalf("clients %v, %v", clients, err)
	}
	vm := clients["vm"]
	q := vm.QueueConfig
	if vm.URL.String() != "http://vm:8428/api/v1/write" || time.Duration(vm.RemoteTimeout) != 10*time.Second || vm.Headers["X-Custom"] != "a" ||
		q.Capacity != 500 || q.MaxSamplesPerSend != 100 || time.Duration(q.BatchSendDeadline) != time.Second ||
		time.Duration(q.MinBackoff) != 100*time.Millisecond || time.Duration(q.MaxBackoff) != time.Second {
		t.Errorf("client vm: %+v", vm)
	}
	// Prometheus' defaults for what the client leaves out.
	if q.MaxShards != 50 || q.MinShards != 1 {
		t.Errorf("queue defaults lost: %+v", q)
	}
}

// TestLokiRulerDefaults: what a config without a ruler block gets is
// Loki's defaults (configuration reference, ruler block).
func TestLokiRulerDefaults(t *testing.T) {
	cfg, err := Load(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Ruler
	if r.ExternalURL != "" || r.DatasourceUID != "" || len(r.ExternalLabels) != 0 || r.EvaluationInterval != time.Minute ||
		r.PollInterval != time.Minute || r.RulePath != "/rules" || r.AlertmanagerURL != "" || r.NotificationQueueCapacity != 10000 ||
		r.NotificationTimeout != 10*time.Second || r.ForOutageTolerance != time.Hour || r.ForGracePeriod != 10*time.Minute ||
		r.ResendDelay != time.Minute || !r.EnableAPI || r.RemoteWrite.Enabled || !r.RemoteWrite.AddOrgIDHeader {
		t.Errorf("defaults %+v", r)
	}
}

// TestRulerRemoteWriteForms: Loki's deprecated client is the client
// "default", as is vloki's url; client with clients is refused with
// Loki's text, as is url with either, and remote write with neither.
func TestRulerRemoteWriteForms(t *testing.T) {
	cfg, err := loadYAML(t, "ruler:\n  remote_write:\n    enabled: true\n    client:\n      url: http://a/w\n")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := cfg.Ruler.RemoteWrite.ClientConfigs(); err != nil || len(c) != 1 || c["default"].URL.String() != "http://a/w" {
		t.Errorf("client: %v %v", c, err)
	}
	cfg, err = loadYAML(t, "ruler:\n  remote_write:\n    enabled: true\n", "-ruler.remote-write.url", "http://u:p@b/w")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cfg.Ruler.RemoteWrite.ClientConfigs()
	if err != nil || len(c) != 1 || c["default"].URL.String() != "http://b/w" || c["default"].HTTPClientConfig.BasicAuth.Username != "u" ||
		time.Duration(c["default"].QueueConfig.BatchSendDeadline) != 5*time.Second {
		t.Errorf("url: %v %v", c, err)
	}
	for yml, want := range map[string]string{
		"    client:\n      url: http://a/w\n    clients:\n      x:\n        url: http://b/w\n": "both 'client' and 'clients' options are defined",
		"    url: http://a/w\n    clients:\n      x:\n        url: http://b/w\n":                "set url, or Loki's clients, not both",
		"    clients:\n      x:\n        headers: {a: b}\n":                                     "url for remote_write is empty",
		"    enabled: true\n": "needs ruler.remote_write.url or ruler.remote_write.clients",
		"    url: b/w\n":      "want http(s)://host/path",
	} {
		if _, err := loadYAML(t, "ruler:\n  remote_write:\n"+yml); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", yml, err, want)
		}
	}
	if _, err := loadYAML(t, "ruler:\n  storage:\n    type: s3\n"); err == nil {
		t.Error("ruler.storage.type s3 accepted")
	}
}
