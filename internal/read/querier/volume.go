package querier

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/otheragents"
	"github.com/vloki/vloki/internal/storage/schema"
)

// Volumes are the series of a volume answer.
type Volumes struct {
	// Series are ordered by their first value, descending, then by name.
	Series []lokidata.Series
	// Matrix: a series found, kept or not, has several points; the
	// answer is then a matrix, else a vector.
	Matrix bool
}

// Volume answers /index/volume and /index/volume_range for the selector
// ms: bytes of log lines per label group (and step), req.Limit series.
// Loki takes these figures from chunk sizes in its index; vloki counts
// the lines' bytes.
func (q *Querier) Volume(ctx context.Context, t tenant.ID, req *loghttp.VolumeQuery, ms []*logql.Matcher) (Volumes, error) {
	return bounded(ctx, q.engine, t, func(ctx context.Context) (Volumes, error) {
		f, err := q.foreign(ctx, t, req.Start, req.End)
		if err != nil {
			return Volumes{}, err
		}
		series := map[string]*lokidata.Series{}
		if err := q.volumeSeries(ctx, t, req, volumeSelector{ms, f}, volumeLabels(req, ms), series); err != nil {
			return Volumes{}, err
		}
		sortPoints(series)
		return topVolumes(series, req.Limit), nil
	})
}

// volumeLabels are the labels volumes are grouped by: targetLabels, or the
// labels the selector names.
func volumeLabels(q *loghttp.VolumeQuery, ms []*logql.Matcher) []string {
	if len(q.TargetLabels) > 0 {
		return q.TargetLabels
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		if !seen[m.Name] {
			seen[m.Name] = true
			out = append(out, m.Name)
		}
	}
	return out
}

// volumeGrid is how Loki's util.ForInterval cuts the range, with inclusive
// ends: step-aligned buckets ending 1ms before the next, the first
// starting at start and the last ending at end. VictoriaLogs sums all
// buckets in one query (stats by _time:step, which is aligned the same
// way); a bucket's point is stamped with its end, as Loki stamps it.
//
// Loki reads these figures from its index, chunk by chunk, so the
// millisecond between two buckets belongs to no bucket only on paper;
// vloki counts an entry in it with its bucket.
type volumeGrid struct {
	start, end, step int64
}

func newVolumeGrid(q *loghttp.VolumeQuery) volumeGrid {
	return volumeGrid{start: q.Start.UnixNano(), end: q.End.UnixNano(), step: q.Step.Nanoseconds()}
}

// stats is the stats pipe for the grid, grouped by `by` too.
func (g volumeGrid) stats(by []string) logsql.BucketStats {
	p := logsql.BucketStats{By: by, Lines: schema.LineBytesPipe}
	if g.step > 0 {
		p.BucketNs = g.step
	}
	return p
}

// filter selects the grid's time range.
func (g volumeGrid) filter() logsql.Filter {
	return logsql.TimeRange{Start: g.start, End: g.end}
}

// pointMs is the timestamp of the bucket a stats row belongs to.
func (g volumeGrid) pointMs(row *backend.Row) (int64, error) {
	if g.step <= 0 {
		return g.end / 1e6, nil
	}
	b, err := parseRowTime(row.Get("_time"))
	if err != nil {
		return 0, err
	}
	return g.pointMsOf(b), nil
}

// bucketOf is the start of the bucket of an entry at ts, as VictoriaLogs'
// stats by _time:step computes it (0 without a step).
func (g volumeGrid) bucketOf(ts int64) int64 {
	if g.step <= 0 {
		return 0
	}
	return ts - ts%g.step
}

// pointMsOf stamps the bucket starting at b with its end, 1ms before the
// next bucket, or the range's end for the last; one point at the end
// without a step.
func (g volumeGrid) pointMsOf(b int64) int64 {
	if g.step <= 0 {
		return g.end / 1e6
	}
	be := b + g.step - int64(time.Millisecond)
	if b+g.step >= g.end {
		be = g.end
	}
	return be / 1e6
}

// volumeSelector is the selector volumes are asked for, and how to read
// data other agents wrote (nil: vloki's own rows).
type volumeSelector struct {
	ms      []*logql.Matcher
	foreign *otheragents.Config
}

// volumeSeries adds up line bytes per label group and bucket.
func (q *Querier) volumeSeries(ctx context.Context, t tenant.ID, req *loghttp.VolumeQuery, sel volumeSelector, groups []string, series map[string]*lokidata.Series) error {
	g := newVolumeGrid(req)
	ok, err := q.volumeFromMemory(ctx, t, req, sel, groups, g, series)
	if err == nil {
		q.metrics.ObserveVolumeAnswer(ok)
	}
	if ok || err != nil {
		return err
	}
	if req.ByLabels {
		return q.volumeByLabelNames(ctx, t, sel, groups, g, series)
	}
	by, labelsOf := groups, groupLabels(groups)
	if sel.foreign != nil {
		// Loki names and derived labels are known per stream only.
		by, labelsOf = []string{"_stream"}, foreignGroupLabels(sel.foreign, groups)
	}
	query := logsql.Query{
		Filter: logsql.And{g.filter(), plan.StreamFilter(sel.ms, sel.foreign)},
		Pipes:  []logsql.Pipe{g.stats(by)},
	}
	return q.storage.Query(ctx, t, backend.QueryRequest{Query: query.String()}, func(row *backend.Row) error {
		ls, err := labelsOf(row)
		if err != nil {
			return err
		}
		return addVolume(series, ls, g, row)
	})
}

// groupLabels reads a volume group's labels from a stats row.
func groupLabels(groups []string) func(*backend.Row) (lokidata.Labels, error) {
	return func(row *backend.Row) (lokidata.Labels, error) {
		var ls lokidata.Labels
		for _, g := range groups {
			if v := row.Get(g); len(v) > 0 {
				ls = append(ls, lokidata.Label{Name: g, Value: string(v)})
			}
		}
		ls.Sort()
		return ls, nil
	}
}

// foreignGroupLabels reads a volume group's labels from a per-stream
// stats row of data other agents wrote.
func foreignGroupLabels(f *otheragents.Config, groups []string) func(*backend.Row) (lokidata.Labels, error) {
	return func(row *backend.Row) (lokidata.Labels, error) {
		stored, err := schema.ParseStream(string(row.Get("_stream")))
		if err != nil {
			return nil, err
		}
		all := f.StreamLabels(stored)
		var ls lokidata.Labels
		for _, g := range groups {
			if v, ok := all.Get(g); ok && v != "" {
				ls = append(ls, lokidata.Label{Name: g, Value: v})
			}
		}
		ls.Sort()
		return ls, nil
	}
}

// volumeByLabelNames is aggregateBy=labels: one series {name=""} per label,
// the bytes of streams that have it.
func (q *Querier) volumeByLabelNames(ctx context.Context, t tenant.ID, sel volumeSelector, names []string, g volumeGrid, series map[string]*lokidata.Series) error {
	for _, name := range names {
		var unset logsql.Filter = logsql.Exact{Field: name, Value: ""}
		if sel.foreign != nil {
			unset = plan.StreamFilter([]*logql.Matcher{{Type: logql.MatchEqual, Name: name}}, sel.foreign)
		}
		query := logsql.Query{
			Filter: logsql.And{g.filter(), plan.StreamFilter(sel.ms, sel.foreign), logsql.Not{F: unset}},
			Pipes:  []logsql.Pipe{g.stats(nil)},
		}
		err := q.storage.Query(ctx, t, backend.QueryRequest{Query: query.String()}, func(row *backend.Row) error {
			return addVolume(series, lokidata.Labels{{Name: name}}, g, row)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func addVolume(series map[string]*lokidata.Series, ls lokidata.Labels, g volumeGrid, row *backend.Row) error {
	n, err := logsql.ParseLineBytes(row.Get("b"), row.Get("b0"))
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	v := float64(n)
	ms, err := g.pointMs(row)
	if err != nil {
		return err
	}
	k := ls.String()
	s := series[k]
	if s == nil {
		s = &lokidata.Series{Metric: ls}
		series[k] = s
	}
	s.Points = append(s.Points, lokidata.Point{TimestampMs: ms, Value: v})
	return nil
}

// sortPoints puts each series' points in time order (VictoriaLogs returns
// stats rows in no particular order).
func sortPoints(series map[string]*lokidata.Series) {
	for _, s := range series {
		sort.Slice(s.Points, func(i, j int) bool { return s.Points[i].TimestampMs < s.Points[j].TimestampMs })
	}
}

// topVolumes orders series by their first value, descending, then by
// name, and keeps limit of them.
func topVolumes(series map[string]*lokidata.Series, limit int) Volumes {
	list := make([]lokidata.Series, 0, len(series))
	matrix := false
	for _, s := range series {
		list = append(list, *s)
		matrix = matrix || len(s.Points) > 1
	}
	sort.Slice(list, func(i, j int) bool {
		a, c := list[i].Points[0].Value, list[j].Points[0].Value
		if a == c {
			return list[i].Metric.String() < list[j].Metric.String()
		}
		return a > c
	})
	if len(list) > limit {
		list = list[:limit]
	}
	return Volumes{Series: list, Matrix: matrix}
}

// parseRowTime reads the _time of a stats row (a bucket's start).
func parseRowTime(b []byte) (int64, error) {
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return 0, fmt.Errorf("VictoriaLogs stats row has bad _time %q: %w", b, err)
	}
	return t.UnixNano(), nil
}
