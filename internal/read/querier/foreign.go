package querier

import (
	"context"
	"sort"
	"time"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/otheragents"
	"github.com/vloki/vloki/internal/storage/schema"
)

// foreignValues answers label names (field "") and a label's values from
// the matching streams' labels as Loki names them, derived ones included.
func (q *Querier) foreignValues(ctx context.Context, t tenant.ID, req *loghttp.LabelQuery, filter string, f *otheragents.Config, field string) ([]string, error) {
	sets, err := q.foreignStreams(ctx, t, filter, req.Start, req.End, f)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []string{}
	for _, ls := range sets {
		for _, l := range ls {
			v := l.Name
			if field != "" {
				if l.Name != field {
					continue
				}
				v = l.Value
			}
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// foreignStreams lists the label sets of the streams a LogsQL filter
// selects, as Loki names them.
func (q *Querier) foreignStreams(ctx context.Context, t tenant.ID, filter string, start, end time.Time, f *otheragents.Config) ([]lokidata.Labels, error) {
	vals, err := q.storage.Values(ctx, t, backend.Streams, backend.MetadataRequest{
		Query: filter, Start: start.UnixNano(), End: end.UnixNano(),
	})
	if err != nil {
		return nil, err
	}
	sets := make([]lokidata.Labels, 0, len(vals))
	for _, v := range vals {
		ls, err := schema.ParseStream(v.Value)
		if err != nil {
			return nil, err
		}
		sets = append(sets, f.StreamLabels(ls))
	}
	return sets, nil
}
