package engine

import (
	"context"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// namesTTL bounds how long a tenant's stored field names are reused.
const namesTTL = time.Minute

// namesCache keeps each tenant's field-name map for data other agents
// wrote, keyed by tenant and the hours the query covers.
type namesCache struct {
	mu sync.Mutex
	m  map[namesKey]namesEntry
}

type namesKey struct {
	tenant     tenant.ID
	start, end int64 // hours
}

type namesEntry struct {
	names *otheragents.Map
	at    time.Time
}

// Foreign returns the foreign-data settings with the names stored in
// [start, end], nil when vloki reads only its own rows.
func (e *Engine) Foreign(ctx context.Context, t tenant.ID, start, end int64) (*otheragents.Config, error) {
	if e.foreign == nil {
		return nil, nil
	}
	names, err := e.names.get(ctx, e.c, t, start, end)
	if err != nil {
		return nil, err
	}
	f := *e.foreign
	f.Names = names
	// service_name and detected_level as the tenant's pushes would have
	// had them.
	l := e.limits.For(t)
	f.DiscoverServiceName, f.Levels = l.DiscoverServiceName, nil
	if l.DiscoverLogLevels {
		f.Levels = &l
	}
	return &f, nil
}

func (c *namesCache) get(ctx context.Context, cl *backend.Client, t tenant.ID, start, end int64) (*otheragents.Map, error) {
	hour := int64(time.Hour)
	key := namesKey{tenant: t, start: start / hour, end: end/hour + 1}
	c.mu.Lock()
	if en, ok := c.m[key]; ok && time.Since(en.at) < namesTTL {
		c.mu.Unlock()
		return en.names, nil
	}
	c.mu.Unlock()
	names, err := storedNames(ctx, cl, t, key.start*hour, key.end*hour-1)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 1000 {
		c.m = map[namesKey]namesEntry{}
	}
	c.m[key] = namesEntry{names: names, at: time.Now()}
	return names, nil
}

// storedNames maps every field name VictoriaLogs holds in [start, end].
func storedNames(ctx context.Context, c *backend.Client, t tenant.ID, start, end int64) (*otheragents.Map, error) {
	vals, err := c.Values(ctx, t, backend.FieldNames, backend.MetadataRequest{Query: "*", Start: start, End: end})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(vals))
	for _, v := range vals {
		names = append(names, v.Value)
	}
	return otheragents.New(names), nil
}
