package streamindex

import (
	"context"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
)

// StreamSpans calls fn with the labels of each of the tenant's streams
// matching ms whose acknowledged entries span part of [start, end] (Unix
// ns, inclusive), and that span, when the index knows every stored stream
// of the range; ok is false when the storage may hold others.
func (ix *Index) StreamSpans(ctx context.Context, t tenant.ID, ms []*logql.Matcher, start, end int64, fn func(ls lokidata.Labels, min, max int64)) (ok bool, err error) {
	if ok, err := ix.KnowsFrom(ctx, t, start); !ok || err != nil {
		return false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tn := ix.tenants[t]
	if tn == nil {
		return true, nil
	}
	if tn.full {
		return false, nil
	}
	for _, st := range tn.candidates(ms) {
		if st.max < start || st.min > end || !logql.MatchLabels(ms, st.labels.Get) {
			continue
		}
		fn(st.labels, st.min, st.max)
	}
	return true, nil
}
