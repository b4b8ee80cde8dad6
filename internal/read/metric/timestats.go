package metric

import (
	"context"
	"sort"

	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/schema"
)

// timeStats reads a bucket-answered input's samples as VictoriaLogs'
// counts and line bytes per exact timestamp and group (by, labelled by
// labelsOf), for the frozen samples store: c entries at one timestamp
// become c samples there, the first carrying their bytes. Every window
// holds a timestamp's samples all or none, so its count and byte sum are
// the rows path's; the storage returns a row per timestamp and group, not
// the lines.
func (ev *evaluator) timeStats(by []string, labelsOf func(*backend.Row) (lokidata.Labels, error)) seriesFetch {
	return func(ctx context.Context, m *plan.RangeAgg, times []logsql.Filter) ([]*rangeSeries, error) {
		// The limit goes before the stats: VictoriaLogs builds every group
		// before it answers one, so a limit on the answer would still hold
		// a group per line of the span (GBs on millions of lines).
		pipes := []logsql.Pipe{logsql.Limit(maxTimeStatsSamples + 1),
			logsql.BucketStats{ExactTime: true, By: by, Lines: schema.LineBytesPipe, NoBytes: !m.Op.LineBytes()}}
		index := map[string]*rangeSeries{}
		lines := int64(0)
		row := ev.timeStatsRow(m, labelsOf, index, &lines)
		if err := ev.queryTimes(ctx, m.Log, times, pipes, row); err != nil {
			return nil, err
		}
		return sortedSeries(index, sortByTime), nil
	}
}

// timeStatsRow adds one stats row's samples to its series.
// lines counts the entries read; past maxTimeStatsSamples the fetch stops.
func (ev *evaluator) timeStatsRow(m *plan.RangeAgg, labelsOf func(*backend.Row) (lokidata.Labels, error), index map[string]*rangeSeries, lines *int64) func(*backend.Row) error {
	return func(row *backend.Row) error {
		ts, err := logrow.ParseTime(row.Get("_time"))
		if err != nil {
			return err
		}
		count, err := logrow.ParseCount(row.Get("c"))
		if err != nil {
			return err
		}
		if *lines += count; *lines > maxTimeStatsSamples {
			return errTooManySamples
		}
		var bytes int64
		if m.Op.LineBytes() {
			if bytes, err = logsql.ParseLineBytes(row.Get("b"), row.Get("b0")); err != nil {
				return err
			}
		}
		labels, err := labelsOf(row)
		if err != nil {
			return err
		}
		s, err := ev.seriesOf(index, labels)
		if err != nil {
			return err
		}
		if err := ev.mem.take(count * sampleBytes); err != nil {
			return err
		}
		for k := int64(0); k < count; k++ {
			v := 0.0
			if k == 0 {
				v = float64(bytes)
			}
			s.ts, s.vals = append(s.ts, ts), append(s.vals, v)
		}
		return nil
	}
}

// sortByTime orders a series' samples by timestamp (samples sharing one
// keep their order).
func sortByTime(s *rangeSeries) {
	idx := make([]int, len(s.ts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.ts[idx[a]] < s.ts[idx[b]] })
	ts, vals := make([]int64, len(idx)), make([]float64, len(idx))
	for i, j := range idx {
		ts[i], vals[i] = s.ts[j], s.vals[j]
	}
	s.ts, s.vals = ts, vals
}
