package querier

import (
	"context"
	"slices"
	"sort"

	"github.com/vloki/vloki/internal/acked/streamindex"
	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/otheragents"
	"github.com/vloki/vloki/internal/storage/schema"
)

// Series are the label sets of the streams matching any of the request's
// selectors (every stream without one), each once, in label-string order.
func (q *Querier) Series(ctx context.Context, t tenant.ID, req *loghttp.SeriesQuery) ([]lokidata.Labels, error) {
	return bounded(ctx, q.engine, t, func(ctx context.Context) ([]lokidata.Labels, error) {
		f, err := q.foreign(ctx, t, req.Start, req.End)
		if err != nil {
			return nil, err
		}
		if f == nil {
			sets, ok := q.seriesFromMemory(ctx, t, req)
			q.metrics.ObserveSeriesAnswer(ok)
			if ok {
				return sets, nil
			}
		}
		streams, err := q.seriesStreams(ctx, t, req, f)
		if err != nil {
			return nil, err
		}
		return seriesLabels(streams, f)
	})
}

// seriesFromMemory answers from the stream index when it holds every
// entry of the range (vloki's own rows): the streams matching a selector
// with an entry in [start, end], as VictoriaLogs' streams endpoint lists
// them, without reading the storage. Delete requests hide lines, not
// series (Loki's index keeps them), so they do not narrow the answer.
func (q *Querier) seriesFromMemory(ctx context.Context, t tenant.ID, req *loghttp.SeriesQuery) ([]lokidata.Labels, bool) {
	if q.streams == nil {
		return nil, false
	}
	selectors := req.Selectors
	if len(selectors) == 0 {
		selectors = [][]*logql.Matcher{nil}
	}
	seen := map[string]bool{}
	var sets []lokidata.Labels
	var keys []string
	for _, ms := range selectors {
		ok, err := q.streams.Indexed(ctx, t, ms, req.Start.UnixNano(), req.End.UnixNano(), func(e streamindex.Entries) {
			if len(e.Lines) == 0 {
				return
			}
			if key := e.Labels.String(); !seen[key] {
				seen[key] = true
				sets, keys = append(sets, slices.Clone(e.Labels)), append(keys, key)
			}
		})
		if !ok || err != nil {
			return nil, false
		}
	}
	sort.Sort(byKey{keys, sets})
	return sets, true
}

// seriesStreams are the stored streams matching any selector, each once.
func (q *Querier) seriesStreams(ctx context.Context, t tenant.ID, req *loghttp.SeriesQuery, f *otheragents.Config) ([]string, error) {
	filters := []string{"*"}
	if len(req.Selectors) > 0 {
		filters = filters[:0]
		for _, ms := range req.Selectors {
			filters = append(filters, selectorFilter(ms, f))
		}
	}
	seen := map[string]bool{}
	var streams []string
	for _, filter := range filters {
		vals, err := q.storage.Values(ctx, t, backend.Streams, backend.MetadataRequest{
			Query: filter, Start: req.Start.UnixNano(), End: req.End.UnixNano(),
		})
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			if !seen[v.Value] {
				seen[v.Value] = true
				streams = append(streams, v.Value)
			}
		}
	}
	return streams, nil
}

// seriesLabels reads stored streams as Loki's label sets, each once, in
// label-string order.
func seriesLabels(streams []string, f *otheragents.Config) ([]lokidata.Labels, error) {
	sets := make([]lokidata.Labels, 0, len(streams))
	seen := map[string]bool{}
	for _, raw := range streams {
		ls, err := schema.ParseStream(raw)
		if err != nil {
			return nil, err
		}
		if f != nil {
			ls = f.StreamLabels(ls)
		}
		if key := ls.String(); !seen[key] {
			seen[key] = true
			sets = append(sets, ls)
		}
	}
	sortByString(sets)
	return sets, nil
}

// sortByString orders label sets by their label strings, each written
// once rather than at every comparison.
func sortByString(sets []lokidata.Labels) {
	keys := make([]string, len(sets))
	for i, ls := range sets {
		keys[i] = ls.String()
	}
	sort.Sort(byKey{keys, sets})
}

// byKey sorts sets by keys, moving both.
type byKey struct {
	keys []string
	sets []lokidata.Labels
}

func (b byKey) Len() int           { return len(b.keys) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
	b.sets[i], b.sets[j] = b.sets[j], b.sets[i]
}
