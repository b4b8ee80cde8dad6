// Package frontend is what Loki's query frontend does before a query
// reaches the engine, kept exact: identical requests in flight share one
// execution (coalescing), and answers over time ranges that can no longer
// change are served from a results cache.
//
// An answer is cached only when its whole time range ends before now -
// MaxCacheFreshness (Loki's max_cache_freshness_per_query, default 10m):
// later data may still arrive for newer ranges. vloki also sees every push
// it acknowledges: a push carrying entries older than that window bumps
// the tenant's generation, and every cached answer of an older generation
// is never served again — an acknowledged push is never hidden by the
// cache. Data other agents write straight into VictoriaLogs is covered by
// the freshness window alone, as in Loki.
package frontend

import (
	"context"
	"crypto/rand"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/model"
)

// Config configures the frontend.
type Config struct {
	// MaxCacheFreshness: answers whose range ends later than now minus
	// this are not cached.
	MaxCacheFreshness time.Duration
	// Cache stores answers; nil disables the results cache.
	Cache Cache
	// Coalesce makes identical in-flight requests share one execution.
	Coalesce bool
	// WaitVisible, when set, returns once the tenant's acknowledged pushes
	// are searchable. The frontend calls it after reading the tenant's
	// cache generation: a generation bumped by a late push is only seen
	// once that push was acknowledged, so the answer stored under it
	// includes the push.
	WaitVisible func(context.Context, backend.Tenant) error
	// AckSeq, when set (vloki the only writer), numbers the tenant's last
	// acknowledged push; it is read with the generation and passed on
	// (AckSeqFrom), so steps computed for the request are known to hold
	// every push up to it. It also lets label names and values over
	// recent days be cached until the tenant's next push.
	AckSeq func(backend.Tenant) uint64
	// MaxQueryLength is the tenant's max_query_length, as the handlers
	// read it (nil or 0: none): a label request over it is answered by its
	// handler's error, never by an answer for the same days.
	MaxQueryLength func(backend.Tenant) time.Duration
	// Retention is the storage's retention (0: none), for AckSeq-keyed
	// answers: rows it deletes change answers without a push.
	Retention time.Duration
}

// Frontend wraps query handlers.
type Frontend struct {
	cfg Config
	// boot tells this process's AckSeq numbers from another's (or an
	// earlier run's) in a shared or restored cache.
	boot   string
	now    func() time.Time
	flight singleflight.Group
	stats  counters

	mu          sync.Mutex
	generations map[backend.Tenant]uint64
	lastAck     map[backend.Tenant]time.Time
}

// Stats count what the frontend did, for /metrics.
type Stats struct {
	Hits, Misses, Stored, Coalesced   uint64
	Uncacheable, BypassedByNoCache    uint64
	InvalidatedByOldPush, TooLargeSet uint64
}

// New returns a frontend.
func New(cfg Config) *Frontend {
	return &Frontend{cfg: cfg, boot: rand.Text(), now: time.Now, generations: map[backend.Tenant]uint64{}, lastAck: map[backend.Tenant]time.Time{}}
}

// Acked is told of every push VictoriaLogs acknowledged: one carrying an
// entry older than the freshness window invalidates the tenant's cached
// answers; any push ends coalescing onto executions that started before it.
func (f *Frontend) Acked(t backend.Tenant, streams []model.Stream) {
	now := f.now()
	cut := now.Add(-f.cfg.MaxCacheFreshness).UnixNano()
	old := false
	for _, s := range streams {
		for _, e := range s.Entries {
			old = old || e.TimestampNs < cut
		}
	}
	f.mu.Lock()
	f.lastAck[t] = now
	if old {
		f.generations[t]++
	}
	f.mu.Unlock()
	if old {
		f.stats.invalidatedByOldPush.Add(1)
		if f.cfg.Cache != nil {
			f.cfg.Cache.Invalidate(context.Background(), tenantKey(t))
		}
	}
}

// Invalidate moves the tenant to a new generation: no answer cached for it
// so far is served again (a delete request changed what they hold).
func (f *Frontend) Invalidate(t backend.Tenant) {
	f.mu.Lock()
	f.generations[t]++
	f.mu.Unlock()
	if f.cfg.Cache != nil {
		f.cfg.Cache.Invalidate(context.Background(), tenantKey(t))
	}
}

// Generation is the tenant's cache generation: the shared cache's when
// there is one, else this process's; false when it cannot be read.
func (f *Frontend) Generation(ctx context.Context, t backend.Tenant) (uint64, bool) {
	if f.cfg.Cache != nil {
		return f.cfg.Cache.Generation(ctx, tenantKey(t))
	}
	return f.generation(t), true
}

type readStateKey struct{}

// readState is what the frontend read before the request waited for its
// tenant's pushes to be searchable.
type readState struct {
	gen, acks     uint64
	genOK, acksOK bool
}

// GenerationFrom is the generation the frontend read for the request
// before it waited for the tenant's pushes; false when it read none
// (nothing computed for the request may then be kept).
func GenerationFrom(ctx context.Context) (uint64, bool) {
	st, ok := ctx.Value(readStateKey{}).(readState)
	return st.gen, ok && st.genOK
}

// AckSeqFrom is the tenant's acknowledged-push number the frontend read
// before the request waited for its pushes (Config.AckSeq); false when
// none was read.
func AckSeqFrom(ctx context.Context) (uint64, bool) {
	st, ok := ctx.Value(readStateKey{}).(readState)
	return st.acks, ok && st.acksOK
}

func (f *Frontend) maxQueryLength(t backend.Tenant) time.Duration {
	if f.cfg.MaxQueryLength == nil {
		return 0
	}
	return f.cfg.MaxQueryLength(t)
}

func (f *Frontend) generation(t backend.Tenant) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.generations[t]
}

func (f *Frontend) ackedSince(t backend.Tenant, since time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastAck[t].After(since)
}

// counters are Stats as they are kept: atomics, as every request counts.
type counters struct {
	hits, misses, stored, coalesced   atomic.Uint64
	uncacheable, bypassedByNoCache    atomic.Uint64
	invalidatedByOldPush, tooLargeSet atomic.Uint64
}

// Snapshot returns the counters.
func (f *Frontend) Snapshot() Stats {
	c := &f.stats
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Stored: c.stored.Load(), Coalesced: c.coalesced.Load(),
		Uncacheable: c.uncacheable.Load(), BypassedByNoCache: c.bypassedByNoCache.Load(),
		InvalidatedByOldPush: c.invalidatedByOldPush.Load(), TooLargeSet: c.tooLargeSet.Load()}
}

// TenantFunc returns the tenant a request was resolved to.
type TenantFunc func(context.Context) backend.Tenant

// Wrap serves route's requests through the frontend.
func (f *Frontend) Wrap(route string, tenantOf TenantFunc, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t := tenantOf(r.Context())
		req, err := describe(route, r, f.now(), f.maxQueryLength(t))
		if err != nil {
			f.waitVisible(r.Context(), t)
			h(w, r) // the handler answers the malformed request
			return
		}
		noCache := r.Header.Get("Cache-Control") == "no-cache"
		cacheKey, cacheable, st := f.cacheKey(r.Context(), route, req, t, noCache)
		f.waitVisible(r.Context(), t)
		if cacheable {
			if a, ok := f.cfg.Cache.Get(r.Context(), cacheKey); ok {
				f.stats.hits.Add(1)
				a.writeTo(w, r)
				return
			}
			f.stats.misses.Add(1)
		} else if noCache {
			f.stats.bypassedByNoCache.Add(1)
		} else {
			f.stats.uncacheable.Add(1)
		}
		if st != nil { // for the handler: only misses copy the request
			r = r.WithContext(context.WithValue(r.Context(), readStateKey{}, *st))
		}
		a := f.execute(t, req.key(t, f.generation(t)), h, r)
		if cacheable && a.status == http.StatusOK && a.complete {
			a = a.withGzip()
			if f.cfg.Cache.Set(r.Context(), cacheKey, a) {
				f.stats.stored.Add(1)
			} else {
				f.stats.tooLargeSet.Add(1)
			}
		}
		a.writeTo(w, r)
	}
}

// cacheKey decides whether the request's answer may be cached and under
// which key, and reads what the handler is told (readState; nil when it
// needs nothing). It runs before the wait for the tenant's pushes: a
// generation or push number a late push moved on is only seen once that
// push is searchable.
func (f *Frontend) cacheKey(ctx context.Context, route string, req *request, t backend.Tenant, noCache bool) (string, bool, *readState) {
	now := f.now()
	frozen := f.cfg.Cache != nil && !noCache && req.frozenBefore(now.Add(-f.cfg.MaxCacheFreshness))
	// Until the tenant's next push (vloki the sole writer).
	untilPush := !frozen && f.cfg.Cache != nil && !noCache && f.cfg.AckSeq != nil &&
		req.settledByPushes(now, f.cfg.Retention)
	if !frozen && !untilPush && (route != "query_range" || noCache) {
		return "", false, nil
	}
	gen, ok := f.Generation(ctx, t)
	st := &readState{gen: gen, genOK: ok}
	if f.cfg.AckSeq != nil {
		st.acks, st.acksOK = f.cfg.AckSeq(t), true
	}
	key := req.key(t, gen)
	if untilPush {
		key += "\x00ack:" + f.boot + ":" + strconv.FormatUint(st.acks, 10)
	}
	return key, ok && (frozen || untilPush), st
}

func (f *Frontend) waitVisible(ctx context.Context, t backend.Tenant) {
	if f.cfg.WaitVisible != nil {
		// A failed wait leaves the read to meet the same trouble.
		_ = f.cfg.WaitVisible(ctx, t)
	}
}

// execute runs h once for all identical requests in flight (when
// coalescing), detached from any one client, so one leaving does not
// cancel the others' answer. A request does not join an execution that
// started before its tenant's last acknowledged push.
func (f *Frontend) execute(t backend.Tenant, key string, h http.HandlerFunc, r *http.Request) *answer {
	run := func(ctx context.Context) *answer {
		rec := newRecorder()
		h(rec, r.WithContext(ctx))
		return rec.answer()
	}
	if !f.cfg.Coalesce {
		return run(r.Context())
	}
	for {
		me := &flightResult{started: f.now()}
		ch := f.flight.DoChan(key, func() (any, error) {
			me.a = run(context.WithoutCancel(r.Context()))
			return me, nil
		})
		select {
		case res := <-ch:
			fr := res.Val.(*flightResult)
			if fr == me {
				return fr.a
			}
			if f.ackedSince(t, fr.started) {
				continue // that execution may predate a push this request must see
			}
			f.stats.coalesced.Add(1)
			return fr.a
		case <-r.Context().Done():
			return &answer{status: 499, body: []byte(r.Context().Err().Error())}
		}
	}
}

type flightResult struct {
	a       *answer
	started time.Time
}
