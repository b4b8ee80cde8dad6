package ingest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/push"
	"github.com/vloki/vloki/internal/tenant"
)

// RateLimiter is Loki's per-tenant ingestion rate limit
// (ingestion_rate_mb, ingestion_burst_size_mb): a token bucket of entry
// bytes — line plus structured metadata, detected_level excluded, as Loki
// counts them — refilled at Rate bytes a second up to Burst.
type RateLimiter struct {
	Rate, Burst int

	mu      sync.Mutex
	buckets map[backend.Tenant]*rate.Limiter
}

// NewRateLimiter returns a limiter; a rate of 0 admits everything.
func NewRateLimiter(bytesPerSecond, burstBytes int) *RateLimiter {
	return &RateLimiter{Rate: bytesPerSecond, Burst: burstBytes, buckets: map[backend.Tenant]*rate.Limiter{}}
}

// Admit takes a push's bytes from the tenant's bucket, or answers Loki's
// 429 when they do not fit.
func (l *RateLimiter) Admit(ctx context.Context, t backend.Tenant, streams []model.Stream, now time.Time) error {
	if l == nil || l.Rate <= 0 {
		return nil
	}
	lines, bytes := Size(streams)
	if l.bucket(t).AllowN(now, bytes) {
		return nil
	}
	return &push.Error{Status: 429, Msg: fmt.Sprintf("ingestion rate limit exceeded for user %s (limit: %d bytes/sec) while attempting to ingest '%d' lines totaling '%d' bytes, reduce log volume or contact your Loki administrator to see if the limit can be increased",
		tenant.NameFrom(ctx), l.Rate, lines, bytes)}
}

func (l *RateLimiter) bucket(t backend.Tenant) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[t]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(l.Rate), max(l.Burst, l.Rate))
		l.buckets[t] = b
	}
	return b
}

// Size is the entries of streams and their bytes, counted as Loki's
// util.EntryTotalSize counts them.
func Size(streams []model.Stream) (lines, bytes int) {
	for _, s := range streams {
		for _, e := range s.Entries {
			lines++
			bytes += len(e.Line)
			for _, m := range e.StructuredMetadata {
				if m.Name != push.DetectedLevelLabel {
					bytes += len(m.Name) + len(m.Value)
				}
			}
		}
	}
	return lines, bytes
}
