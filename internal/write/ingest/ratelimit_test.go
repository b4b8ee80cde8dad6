package ingest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// TestRateLimiterPerTenant: each tenant has its own bucket at its own
// rate and burst, and a changed limit applies to the tenant's bucket from
// its next push.
func TestRateLimiterPerTenant(t *testing.T) {
	defaults := limits.Default()
	o := limits.NewOverrides(defaults)
	a, b := tenant.ID{AccountID: 1}, tenant.ID{AccountID: 2}
	small := defaults
	small.IngestionRateMB, small.IngestionBurstSizeMB = 1.0/1024, 1.0/1024 // 1 KiB/s, 1 KiB
	o.Set(map[tenant.ID]limits.Limits{a: small})
	l := NewRateLimiter(o)
	now := time.Now()
	push := func(t tenant.ID, bytes int) error {
		streams := []lokidata.Stream{{Entries: []lokidata.Entry{{Line: strings.Repeat("x", bytes)}}}}
		return l.Admit(tenant.WithName(context.Background(), "someone"), t, streams, now)
	}
	if err := push(a, 1000); err != nil {
		t.Fatalf("within A's burst: %v", err)
	}
	err := push(a, 1000)
	want := "ingestion rate limit exceeded for user someone (limit: 1024 bytes/sec) while attempting to ingest '1' lines totaling '1000' bytes"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("beyond A's burst: %v", err)
	}
	if err := push(b, 100_000); err != nil {
		t.Fatalf("B at the default rate: %v", err)
	}
	o.Set(map[tenant.ID]limits.Limits{b: small})
	// As in Loki's limiter, the bucket takes its new rate at the next
	// push, and refills at it from then on.
	if err := push(a, 1); err != nil {
		t.Fatalf("A raised: %v", err)
	}
	now = now.Add(10 * time.Millisecond)
	if err := push(a, 100_000); err != nil {
		t.Fatalf("A back at the default rate: %v", err)
	}
	if err := push(b, 2000); err == nil {
		t.Fatal("B lowered: admitted beyond its burst")
	}
	off := defaults
	off.IngestionRateMB = 0
	o.Set(map[tenant.ID]limits.Limits{b: off})
	if err := push(b, 1<<20); err != nil {
		t.Fatalf("B without a rate limit: %v", err)
	}
}
