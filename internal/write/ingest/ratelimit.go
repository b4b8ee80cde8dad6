package ingest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/write/push"
)

// RateLimiter is Loki's per-tenant ingestion rate limit
// (ingestion_rate_mb, ingestion_burst_size_mb): a token bucket per tenant
// of entry bytes — line plus structured metadata, detected_level
// excluded, as Loki counts them — refilled at the tenant's rate up to its
// burst. A tenant whose limits change keeps its bucket, set to its new
// rate and burst at its next push (as Loki's limiter does).
type RateLimiter struct {
	limits *limits.Overrides

	mu      sync.Mutex
	buckets map[tenant.ID]*rate.Limiter
}

// NewRateLimiter returns a limiter reading each tenant's rate and burst
// from l; a rate of 0 admits everything.
func NewRateLimiter(l *limits.Overrides) *RateLimiter {
	return &RateLimiter{limits: l, buckets: map[tenant.ID]*rate.Limiter{}}
}

// Admit takes a push's bytes from the tenant's bucket, or answers Loki's
// 429 when they do not fit.
func (l *RateLimiter) Admit(ctx context.Context, t tenant.ID, streams []lokidata.Stream, now time.Time) error {
	if l == nil {
		return nil
	}
	limit, burst := l.limits.For(t).IngestionRate()
	if limit <= 0 {
		return nil
	}
	lines, bytes := Size(streams)
	if l.bucket(t, limit, burst, now).AllowN(now, bytes) {
		return nil
	}
	return &push.Error{Status: 429, Msg: fmt.Sprintf("ingestion rate limit exceeded for user %s (limit: %d bytes/sec) while attempting to ingest '%d' lines totaling '%d' bytes, reduce log volume or contact your Loki administrator to see if the limit can be increased",
		tenant.NameFrom(ctx), limit, lines, bytes)}
}

// bucket is the tenant's bucket, set to its current rate and burst.
func (l *RateLimiter) bucket(t tenant.ID, limit, burst int, now time.Time) *rate.Limiter {
	burst = max(burst, limit)
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[t]
	switch {
	case b == nil:
		b = rate.NewLimiter(rate.Limit(limit), burst)
		l.buckets[t] = b
	case b.Limit() != rate.Limit(limit) || b.Burst() != burst:
		b.SetLimitAt(now, rate.Limit(limit))
		b.SetBurstAt(now, burst)
	}
	return b
}

// Size is the entries of streams and their bytes, counted as Loki's
// util.EntryTotalSize counts them.
func Size(streams []lokidata.Stream) (lines, bytes int) {
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
