// Package frontend is what Loki's query frontend does before a query
// reaches the engine, kept exact. A decoded request meets, in this order:
//
//  1. the results cache (cache.go, cache_remote.go, encoding.go): answers
//     over time ranges that can no longer change, served whole;
//  2. the read-your-writes wait: the tenant's acknowledged pushes become
//     searchable before anything is computed;
//  3. coalescing (coalesce.go): identical requests in flight share one
//     execution;
//  4. the handler, told what the frontend read (ReadState), whose
//     metric range queries reuse kept steps (extents.go's store).
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
	"sync/atomic"
	"time"

	"github.com/vloki/vloki/internal/acked/acks"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/metric"
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
	// Gzip: answers are sent gzipped to clients that accept it (Loki's
	// compress_responses), so the cache keeps them gzipped; otherwise it
	// keeps them as written, and a hit sends them without work.
	Gzip bool
	// WaitVisible, when set, returns once the tenant's acknowledged pushes
	// are searchable. The frontend calls it after reading the tenant's
	// cache generation: a generation bumped by a late push is only seen
	// once that push was acknowledged, so the answer stored under it
	// includes the push.
	WaitVisible func(context.Context, tenant.ID) error
	// AckSeq, when set (vloki the only writer), numbers the tenant's last
	// acknowledged push; it is read with the generation and passed on
	// (AckSeqFrom), so steps computed for the request are known to hold
	// every push up to it. It also lets label names and values over
	// recent days be cached until the tenant's next push. ok is false
	// while the number may miss pushes (replicas out of touch, package
	// peers): the request then keeps and reuses nothing by push numbers.
	AckSeq func(tenant.ID) (seq uint64, ok bool)
	// LastAck, when set, is the tenant's last acknowledged push (the
	// ledger's, acks.Ledger.LastAck): a request does not join an execution
	// that started before it.
	LastAck func(tenant.ID) acks.Ack
	// Retention is the storage's retention (0: none), for AckSeq-keyed
	// answers: rows it deletes change answers without a push.
	Retention time.Duration
	// Engine plans and runs what the query stages hand down (Over).
	Engine *engine.Engine
	// Extents, when set, keeps range queries' frozen steps.
	Extents *Extents
	// Samples, when set, keeps the samples range aggregations extract
	// from frozen data (frozen.go).
	Samples *FrozenSamples
	// Indexed, when set (vloki the only writer), is the stream index:
	// counts and byte sums over bare selectors come from it at any grid.
	Indexed metric.Indexed
	// RecentLogs, when set, keeps the frozen spans of log queries'
	// answers (recent_logs.go).
	RecentLogs *RecentLogs
}

// Over sets the engine the query stages hand down to, the store of range
// queries' frozen steps, that of their frozen samples, the stream index
// and the store of log queries' frozen spans (nil: none). Assembly calls it once, before any request: the
// engine is built after the frontend, which the writer and the delete
// requests tell of acknowledged pushes and deletes.
func (f *Frontend) Over(e *engine.Engine, x *Extents, s *FrozenSamples, ix metric.Indexed, r *RecentLogs) {
	f.cfg.Engine, f.cfg.Extents, f.cfg.Samples, f.cfg.Indexed, f.cfg.RecentLogs = e, x, s, ix, r
}

// Frontend wraps query handlers.
type Frontend struct {
	cfg Config
	// boot tells this process's AckSeq numbers from another's (or an
	// earlier run's) in a shared or restored cache.
	boot   string
	now    func() time.Time
	flight flights
	stats  counters
	// steps remembers answers kept by their steps (steps_memo.go).
	steps stepsMemo
	// asked admits an answer to the results cache the second time its key
	// is asked: windows that move with every request never repeat, and
	// storing each of their answers filled the cache's bound for nothing.
	asked askedSet
	// admitFirst stores answers the first time (unit tests of what may be
	// cached under which key, apart from admission).
	admitFirst bool

	// generations are this process's own, read without a results cache.
	generations localGenerations
}

// Stats count what the frontend did, for /metrics.
type Stats struct {
	Hits, Misses, Stored, Coalesced   uint64
	Uncacheable, BypassedByNoCache    uint64
	InvalidatedByOldPush, TooLargeSet uint64
	// StepsHits are the hits answered by their steps (steps_memo.go).
	StepsHits uint64
}

// New returns a frontend.
func New(cfg Config) *Frontend {
	return &Frontend{cfg: cfg, boot: rand.Text(), now: time.Now}
}

// Acked is told by the ledger of every push VictoriaLogs acknowledged: one
// carrying an entry older than the freshness window invalidates the
// tenant's cached answers.
func (f *Frontend) Acked(p acks.Push) {
	if p.Oldest >= f.now().Add(-f.cfg.MaxCacheFreshness).UnixNano() {
		return
	}
	f.stats.invalidatedByOldPush.Add(1)
	f.Invalidate(p.Tenant)
}

// Invalidate moves the tenant to a new generation: no answer cached for it
// so far is served again (a delete request changed what they hold).
func (f *Frontend) Invalidate(t tenant.ID) {
	f.generations.bump(tenantKey(t))
	if f.cfg.Cache != nil {
		f.cfg.Cache.Invalidate(context.Background(), tenantKey(t))
	}
}

// InvalidateAll moves every tenant, known or not, to a new generation of
// this process's own: pushes of any tenant may have been acknowledged
// without this process being told (package peers). A shared cache's
// generations are left alone, as the replica that acknowledged a push
// moved them on there.
func (f *Frontend) InvalidateAll() {
	f.generations.bumpAll()
	if f.cfg.Cache != nil {
		f.cfg.Cache.InvalidateAll()
	}
}

// Generation is the tenant's cache generation: the shared cache's when
// there is one, else this process's; false when it cannot be read.
func (f *Frontend) Generation(ctx context.Context, t tenant.ID) (uint64, bool) {
	if f.cfg.Cache != nil {
		return f.cfg.Cache.Generation(ctx, tenantKey(t))
	}
	return f.generations.get(tenantKey(t)), true
}

// ackedSince reports a push of t acknowledged after since.
func (f *Frontend) ackedSince(t tenant.ID, since time.Time) bool {
	return f.cfg.LastAck != nil && f.cfg.LastAck(t).At.After(since)
}

// counters are Stats as they are kept: atomics, as every request counts.
type counters struct {
	hits, misses, stored, coalesced   atomic.Uint64
	stepsHits                         atomic.Uint64
	uncacheable, bypassedByNoCache    atomic.Uint64
	invalidatedByOldPush, tooLargeSet atomic.Uint64
}

// Snapshot returns the counters.
func (f *Frontend) Snapshot() Stats {
	c := &f.stats
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Stored: c.stored.Load(), Coalesced: c.coalesced.Load(),
		Uncacheable: c.uncacheable.Load(), BypassedByNoCache: c.bypassedByNoCache.Load(),
		InvalidatedByOldPush: c.invalidatedByOldPush.Load(), TooLargeSet: c.tooLargeSet.Load(), StepsHits: c.stepsHits.Load()}
}

// Handler answers a request the frontend passes on, told what the
// frontend read for it.
type Handler func(w http.ResponseWriter, ctx context.Context, st ReadState)

// Serve answers req through the frontend: from the results cache when it
// holds the answer, else by h once the tenant's pushes are searchable,
// shared with identical requests in flight.
func (f *Frontend) Serve(w http.ResponseWriter, r *http.Request, req *Request, h Handler) {
	cacheKey, cacheable, st := f.cacheKey(r.Context(), req)
	f.waitVisible(r.Context(), req.Tenant)
	stepsKey, bySteps := "", false
	if !cacheable {
		stepsKey, bySteps = f.stepsKey(req, st)
	}
	if cacheable {
		if a, ok := f.cfg.Cache.Get(r.Context(), cacheKey); ok {
			f.stats.hits.Add(1)
			a.writeTo(w, r)
			return
		}
		f.stats.misses.Add(1)
	} else if bySteps {
		if a, ok := f.fromSteps(r.Context(), req, stepsKey); ok {
			f.stats.hits.Add(1)
			f.stats.stepsHits.Add(1)
			a.writeTo(w, r)
			return
		}
		f.stats.misses.Add(1)
	} else if req.NoCache {
		f.stats.bypassedByNoCache.Add(1)
	} else {
		f.stats.uncacheable.Add(1)
	}
	a := f.execute(r.Context(), req, func(rec http.ResponseWriter, ctx context.Context) { h(rec, ctx, st) })
	if (cacheable && (f.admitFirst || f.asked.again(cacheKey)) || bySteps && f.steps.again(stepsKey)) && a.status == http.StatusOK && a.complete {
		if f.cfg.Gzip {
			a = a.withGzip()
		}
		stored := false
		if cacheable {
			stored = f.cfg.Cache.Set(r.Context(), cacheKey, a.kept())
		} else {
			stored = f.keepSteps(r.Context(), stepsKey, st.AckSeq, a.kept())
		}
		if stored {
			f.stats.stored.Add(1)
		} else {
			f.stats.tooLargeSet.Add(1)
		}
	}
	a.writeTo(w, r)
}

// cacheKey decides whether the request's answer may be cached and under
// which key, and reads what the handler is told. It runs before the wait
// for the tenant's pushes: a generation or push number a late push moved
// on is only seen once that push is searchable.
func (f *Frontend) cacheKey(ctx context.Context, req *Request) (string, bool, ReadState) {
	now := f.now()
	caching := f.cfg.Cache != nil && !req.NoCache
	frozen := caching && req.frozenBefore(now.Add(-f.cfg.MaxCacheFreshness))
	// Until the tenant's next push (vloki the sole writer).
	var st ReadState
	if f.cfg.AckSeq != nil {
		if st.AckSeq, st.AckSeqOK = f.cfg.AckSeq(req.Tenant); !st.AckSeqOK {
			// Pushes may have been acknowledged without this process
			// being told (package peers): not even a late push's
			// generation can be trusted, so nothing is kept or reused.
			return "", false, ReadState{}
		}
	}
	untilPush := !frozen && caching && st.AckSeqOK && req.settledByPushes(now, f.cfg.Retention)
	if !frozen && !untilPush && (!readsLogAnswers(req.Route) || req.NoCache) {
		return "", false, ReadState{}
	}
	st.Generation, st.GenerationOK = f.Generation(ctx, req.Tenant)
	key := req.key(st.Generation)
	if untilPush {
		key += "\x00ack:" + f.boot + ":" + strconv.FormatUint(st.AckSeq, 10)
	}
	return key, st.GenerationOK && (frozen || untilPush), st
}

// readsLogAnswers: routes whose handlers read log answers through the
// frontend (Range), which keeps their frozen parts under the read state
// even when the answer itself is not cached.
func readsLogAnswers(route string) bool {
	return route == "query_range" || route == "detected_fields" || route == "detected_field_values" || route == "patterns"
}

func (f *Frontend) waitVisible(ctx context.Context, t tenant.ID) {
	if f.cfg.WaitVisible != nil {
		// A failed wait leaves the read to meet the same trouble.
		_ = f.cfg.WaitVisible(ctx, t)
	}
}
