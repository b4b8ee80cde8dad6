package limits

import (
	"reflect"
	"sync/atomic"

	"github.com/vloki/vloki/internal/edge/tenant"
)

// Overrides answer each tenant's limits: its override from the runtime
// configuration file, else the defaults. Reads are lock-free (every
// request reads them); a reload swaps the whole map.
type Overrides struct {
	defaults Limits
	tenants  atomic.Pointer[map[tenant.ID]Limits]
}

// NewOverrides returns overrides holding only the defaults.
func NewOverrides(defaults Limits) *Overrides {
	return &Overrides{defaults: defaults}
}

// For is tenant t's limits.
func (o *Overrides) For(t tenant.ID) Limits {
	if m := o.tenants.Load(); m != nil {
		if l, ok := (*m)[t]; ok {
			return l
		}
	}
	return o.defaults
}

// Defaults are the limits of tenants without an override.
func (o *Overrides) Defaults() Limits { return o.defaults }

// Set replaces every tenant's override and returns the tenants whose
// limits changed.
func (o *Overrides) Set(tenants map[tenant.ID]Limits) []tenant.ID {
	var old map[tenant.ID]Limits
	if before := o.tenants.Swap(&tenants); before != nil {
		old = *before
	}
	var changed []tenant.ID
	for t := range union(old, tenants) {
		if !reflect.DeepEqual(o.lookup(old, t), o.lookup(tenants, t)) {
			changed = append(changed, t)
		}
	}
	return changed
}

func (o *Overrides) lookup(m map[tenant.ID]Limits, t tenant.ID) Limits {
	if l, ok := m[t]; ok {
		return l
	}
	return o.defaults
}

func union(a, b map[tenant.ID]Limits) map[tenant.ID]bool {
	out := make(map[tenant.ID]bool, len(a)+len(b))
	for t := range a {
		out[t] = true
	}
	for t := range b {
		out[t] = true
	}
	return out
}
