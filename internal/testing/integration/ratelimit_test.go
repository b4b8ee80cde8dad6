package integration

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
)

// TestIngestionRateLimit: beyond the tenant's burst a push gets Loki's 429
// and its text, nothing of it is written, and other tenants are not
// affected.
func TestIngestionRateLimit(t *testing.T) {
	tg := targetsWith(t, func(c *config.Config) {
		c.Limits.IngestionRateMB, c.Limits.IngestionBurstSizeMB = 1.0/1024, 2.0/1024 // 1 KiB/s, 2 KiB
	})[1]
	line := strings.Repeat("x", 1500)
	push := func(tenant, l string) response {
		b, _ := json.Marshal(jsonPush(map[string]string{"app": "rate"}, entry{ns(time.Now()), l}))
		return tg.do(t, http.MethodPost, "/loki/api/v1/push", tenant, b, map[string]string{"Content-Type": "application/json"})
	}
	if r := push("rl-a", line+"1"); r.status != http.StatusNoContent {
		t.Fatalf("first push: %d %s", r.status, r.body)
	}
	r := push("rl-a", line+"2")
	want := "ingestion rate limit exceeded for user rl-a (limit: 1024 bytes/sec) while attempting to ingest '1' lines totaling '1501' bytes, reduce log volume or contact your Loki administrator to see if the limit can be increased"
	if r.status != http.StatusTooManyRequests || string(r.body) != want {
		t.Fatalf("second push: %d %q", r.status, r.body)
	}
	if r := push("rl-b", line+"3"); r.status != http.StatusNoContent {
		t.Fatalf("another tenant: %d %s", r.status, r.body)
	}
	q := url.Values{"query": {`{app="rate"}`}, "since": {"1m"}}
	if body := string(tg.get(t, "/loki/api/v1/query_range", "rl-a", q, nil).body); !strings.Contains(body, line+"1") || strings.Contains(body, line+"2") {
		t.Fatalf("stored: %.300s", body)
	}
}
