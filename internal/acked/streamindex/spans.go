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
	return ix.eachKnown(ctx, t, ms, start, end, nil, func(st *stream) { fn(st.labels, st.min, st.max) })
}
