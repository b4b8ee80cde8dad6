package frontend

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/go-redis/v9"
)

// remoteStore is the few operations a shared cache engine offers.
type remoteStore interface {
	get(ctx context.Context, key string) ([]byte, error) // errMiss when absent
	set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// incr adds one to a counter; errMiss when it is absent.
	incr(ctx context.Context, key string) error
	// add stores value unless the key exists (no error then either).
	add(ctx context.Context, key string, value []byte) error
}

var errMiss = errors.New("cache miss")

// Remote is a results cache shared by vloki replicas through memcached or
// Redis, the engines Loki itself uses. Keys are hashed (memcached allows
// 250 bytes); tenants' generations live in the engine too.
type Remote struct {
	store   remoteStore
	ttl     time.Duration
	maxItem int
	log     *slog.Logger
}

// RemoteConfig configures a shared cache.
type RemoteConfig struct {
	// TTL of stored answers (answers never change, so this only frees
	// space; the engine's own eviction bounds its memory).
	TTL time.Duration
	// MaxItemBytes: larger answers are not stored (memcached's default
	// item limit is 1 MiB).
	MaxItemBytes int
	// Timeout bounds each cache operation; a slow cache is a miss.
	Timeout time.Duration
	Log     *slog.Logger
}

// NewMemcached returns a cache on the memcached servers at addrs.
func NewMemcached(addrs []string, cfg RemoteConfig) *Remote {
	c := memcache.New(addrs...)
	c.Timeout = cfg.Timeout
	c.MaxIdleConns = 64
	return newRemote(memcachedStore{c}, cfg)
}

// NewRedis returns a cache on the Redis server at addr.
func NewRedis(addr string, cfg RemoteConfig) *Remote {
	c := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: cfg.Timeout, WriteTimeout: cfg.Timeout, DialTimeout: cfg.Timeout})
	return newRemote(redisStore{c}, cfg)
}

func newRemote(s remoteStore, cfg RemoteConfig) *Remote {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Remote{store: s, ttl: cfg.TTL, maxItem: cfg.MaxItemBytes, log: cfg.Log}
}

func remoteKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "vloki:r:" + hex.EncodeToString(sum[:])
}

func generationKey(tenant string) string { return "vloki:g:" + tenant }

// Get returns a stored answer; an unreachable cache is a miss.
func (r *Remote) Get(ctx context.Context, key string) (*answer, bool) {
	b, err := r.store.get(ctx, remoteKey(key))
	if err != nil {
		if !errors.Is(err, errMiss) {
			r.log.Warn("results cache get failed", "err", err)
		}
		return nil, false
	}
	a, err := unmarshalAnswer(b)
	return a, err == nil
}

// Set stores an answer unless it is too large or the cache fails.
func (r *Remote) Set(ctx context.Context, key string, a *answer) bool {
	b := a.marshal()
	if len(b) > r.maxItem {
		return false
	}
	if err := r.store.set(ctx, remoteKey(key), b, r.ttl); err != nil {
		r.log.Warn("results cache set failed", "err", err)
		return false
	}
	return true
}

// Generation reads the tenant's generation from the shared engine. A
// missing one (never set, or evicted) starts at a random value, so answers
// stored under an evicted generation can never be reached again.
func (r *Remote) Generation(ctx context.Context, tenant string) (uint64, bool) {
	key := generationKey(tenant)
	b, err := r.store.get(ctx, key)
	if errors.Is(err, errMiss) {
		if err = r.store.add(ctx, key, randomGeneration()); err == nil {
			b, err = r.store.get(ctx, key)
		}
	}
	if err != nil {
		r.log.Warn("results cache generation read failed", "err", err)
		return 0, false
	}
	g, err := strconv.ParseUint(string(b), 10, 64)
	return g, err == nil
}

// InvalidateAll leaves the shared generations alone: each push moved its
// tenant's on when the replica that acknowledged it was told.
func (r *Remote) InvalidateAll() {}

// Invalidate bumps the tenant's generation for every replica.
func (r *Remote) Invalidate(ctx context.Context, tenant string) {
	key := generationKey(tenant)
	err := r.store.incr(ctx, key)
	if errors.Is(err, errMiss) {
		err = r.store.add(ctx, key, randomGeneration()) // a fresh random one is a new generation too
	}
	if err != nil {
		r.log.Error("results cache invalidation failed: cached answers may hide a late push", "tenant", tenant, "err", err)
	}
}

// randomGeneration leaves room to count up without overflow.
func randomGeneration() []byte {
	return []byte(strconv.FormatUint(rand.Uint64()>>2, 10))
}

type memcachedStore struct{ c *memcache.Client }

func (m memcachedStore) get(_ context.Context, key string) ([]byte, error) {
	it, err := m.c.Get(key)
	if errors.Is(err, memcache.ErrCacheMiss) {
		return nil, errMiss
	}
	if err != nil {
		return nil, err
	}
	return it.Value, nil
}

func (m memcachedStore) set(_ context.Context, key string, v []byte, ttl time.Duration) error {
	return m.c.Set(&memcache.Item{Key: key, Value: v, Expiration: int32(ttl.Seconds())})
}

func (m memcachedStore) incr(_ context.Context, key string) error {
	_, err := m.c.Increment(key, 1)
	if errors.Is(err, memcache.ErrCacheMiss) {
		return errMiss
	}
	return err
}

func (m memcachedStore) add(_ context.Context, key string, v []byte) error {
	err := m.c.Add(&memcache.Item{Key: key, Value: v})
	if errors.Is(err, memcache.ErrNotStored) {
		return nil
	}
	return err
}

type redisStore struct{ c *redis.Client }

func (r redisStore) get(ctx context.Context, key string) ([]byte, error) {
	b, err := r.c.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, errMiss
	}
	return b, err
}

func (r redisStore) set(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	return r.c.Set(ctx, key, v, ttl).Err()
}

// incr only bumps an existing counter (INCR would start a missing one at 1).
func (r redisStore) incr(ctx context.Context, key string) error {
	n, err := incrExisting.Run(ctx, r.c, []string{key}).Int()
	if err == nil && n == 0 {
		return errMiss
	}
	return err
}

var incrExisting = redis.NewScript(`if redis.call("EXISTS", KEYS[1]) == 1 then redis.call("INCR", KEYS[1]) return 1 end return 0`)

func (r redisStore) add(ctx context.Context, key string, v []byte) error {
	return r.c.SetNX(ctx, key, v, 0).Err()
}
