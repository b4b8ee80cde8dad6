package querier

import (
	"context"
	"iter"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/indexstats"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// IndexStats are the streams, entries and line bytes a selector matches.
type IndexStats = indexstats.Stats

// IndexStats answers Grafana's query-size hint for the selector ms over
// [req.Start, req.End). VictoriaLogs has no chunks; each stream counts as
// one.
func (q *Querier) IndexStats(ctx context.Context, t tenant.ID, req *loghttp.RangeQuery, ms []*logql.Matcher) (IndexStats, error) {
	return bounded(ctx, q.engine, t, func(ctx context.Context) (IndexStats, error) {
		f, err := q.foreign(ctx, t, req.Start, req.End)
		if err != nil {
			return IndexStats{}, err
		}
		start, end := req.Start.UnixNano(), req.End.UnixNano()-1
		st, ok, err := q.indexStatsFromMemory(ctx, t, ms, f, start, end)
		if err != nil {
			return st, err
		}
		q.metrics.ObserveVolumeAnswer(ok)
		if ok {
			return st, nil
		}
		return indexstats.Read(ctx, q.storage, t, plan.StreamFilter(ms, f), start, end)
	})
}

// indexStatsFromMemory counts from the stream index's line lengths when
// it holds every entry of [start, end] (inclusive Unix ns).
func (q *Querier) indexStatsFromMemory(ctx context.Context, t tenant.ID, ms []*logql.Matcher, f *otheragents.Config, start, end int64) (IndexStats, bool, error) {
	var st IndexStats
	if f != nil || q.streams == nil {
		return st, false, nil
	}
	ok, err := q.streams.Lines(ctx, t, ms, start, end, func(_ lokidata.Labels, lines iter.Seq2[int64, int64]) {
		entries := st.Entries
		for _, n := range lines {
			st.Entries++
			st.Bytes += n
		}
		if st.Entries > entries {
			st.Streams++
		}
	})
	return st, ok, err
}
