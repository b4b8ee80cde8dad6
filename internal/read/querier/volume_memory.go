package querier

import (
	"context"
	"iter"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// volumeFromMemory sums the stream index's line lengths, grouped and
// bucketed as the storage query groups and buckets them, when the index
// holds every entry of the range (vloki the sole writer, a recent range);
// ok is false when VictoriaLogs must answer. Groups come from stream
// labels only, as Loki's volumes do.
func (q *Querier) volumeFromMemory(ctx context.Context, t tenant.ID, req *loghttp.VolumeQuery, sel volumeSelector, groups []string, g volumeGrid, series map[string]*lokidata.Series) (bool, error) {
	if sel.foreign != nil || q.streams == nil {
		return false, nil
	}
	sums := map[string]*volumeSums{}
	ok, err := q.streams.Lines(ctx, t, sel.ms, g.start, g.end, func(ls lokidata.Labels, lines iter.Seq2[int64, int64]) {
		targets := volumeTargets(ls, groups, req.ByLabels)
		if len(targets) == 0 {
			return
		}
		accs := make([]*volumeSums, len(targets))
		for i, target := range targets {
			accs[i] = target.sums(sums)
		}
		// Lines come in time order: add up a bucket's run, then record it.
		bucket, run, any := int64(0), int64(0), false
		flush := func() {
			for _, a := range accs {
				a.buckets[bucket] += run
			}
		}
		for ts, n := range lines {
			if b := g.bucketOf(ts); !any || b != bucket {
				if any {
					flush()
				}
				bucket, run, any = b, 0, true
			}
			run += n
		}
		if any {
			flush()
		}
	})
	if err != nil || !ok {
		return false, err
	}
	for k, v := range sums {
		for b, n := range v.buckets {
			if n == 0 {
				continue
			}
			ser := series[k]
			if ser == nil {
				ser = &lokidata.Series{Metric: v.labels}
				series[k] = ser
			}
			ser.Points = append(ser.Points, lokidata.Point{TimestampMs: g.pointMsOf(b), Value: float64(n)})
		}
	}
	return true, nil
}

// volumeSums are one group's bytes per bucket start.
type volumeSums struct {
	labels  lokidata.Labels
	buckets map[int64]int64
}

// volumeTarget is a group a stream's bytes count towards.
type volumeTarget struct {
	key    string
	labels lokidata.Labels
}

// sums is the group's accumulator, made on first use.
func (t volumeTarget) sums(all map[string]*volumeSums) *volumeSums {
	v := all[t.key]
	if v == nil {
		v = &volumeSums{labels: t.labels, buckets: map[int64]int64{}}
		all[t.key] = v
	}
	return v
}

// volumeTargets are the groups of a stream: its values of the grouping
// labels (one group), or with aggregateBy=labels one {name=""} per
// grouping label it has.
func volumeTargets(ls lokidata.Labels, groups []string, byLabels bool) []volumeTarget {
	if byLabels {
		var out []volumeTarget
		for _, name := range groups {
			if v, _ := ls.Get(name); v != "" {
				l := lokidata.Labels{{Name: name}}
				out = append(out, volumeTarget{l.String(), l})
			}
		}
		return out
	}
	var l lokidata.Labels
	for _, name := range groups {
		if v, _ := ls.Get(name); v != "" {
			l = append(l, lokidata.Label{Name: name, Value: v})
		}
	}
	l.Sort()
	return []volumeTarget{{l.String(), l}}
}
