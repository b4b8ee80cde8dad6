package exec

import (
	"context"
	"fmt"
	"strconv"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/logsql"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/plan"
)

// maxBucketsPerWindow bounds the buckets summed for one step.
const maxBucketsPerWindow = 256

// bucketTotals are a bucket's row count and line bytes for one group.
type bucketTotals struct {
	count, bytes int64
}

// sumOfRange lets VictoriaLogs count rows and bytes per time bucket and
// group.
func (ev *evaluator) sumOfRange(ctx context.Context, m *plan.SumOfRange) (value, error) {
	groupLabels := func(row *backend.Row) (model.Labels, error) {
		labels := model.Labels{}
		for _, name := range m.By {
			if v := row.Get(name); len(v) > 0 {
				labels = append(labels, model.Label{Name: name, Value: string(v)})
			}
		}
		labels.Sort()
		return labels, nil
	}
	v, ok, err := ev.bucketed(ctx, m.Range, m.By, groupLabels)
	if err != nil || ok {
		return v, err
	}
	// Buckets too fine to be worth it: sum the rows instead.
	raw := &plan.VectorAgg{Op: "sum", Grouping: logql.Grouping{Groups: m.By}, Inner: m.Range}
	return ev.vectorAgg(ctx, raw)
}

// bucketed evaluates the range aggregation from VictoriaLogs' counts and
// byte sums per time bucket and group (by). Buckets are gcd(step, range)
// wide and aligned so every window (t-offset-range, t-offset] is a whole
// number of them, so the sums are exact. ok is false when the buckets
// would be too fine.
func (ev *evaluator) bucketed(ctx context.Context, m *plan.RangeAgg, by []string, labelsOf func(*backend.Row) (model.Labels, error)) (value, bool, error) {
	r, off := m.Range, m.Offset
	bucket := r
	if ev.req.Step > 0 && len(ev.steps) > 1 {
		bucket = gcd(ev.req.Step, r)
	}
	if r/bucket > maxBucketsPerWindow {
		return value{}, false, nil
	}
	first, last := ev.steps[0], ev.steps[len(ev.steps)-1]
	lo, hi := first-off-r+1, last-off
	origin := ((lo % bucket) + bucket) % bucket
	buckets, groups, err := ev.fetchBuckets(ctx, m, by, labelsOf, lo, hi, bucket, origin)
	if err != nil {
		return value{}, true, err
	}
	out := value{vectors: make([][]sample, len(ev.steps))}
	for i, t := range ev.steps {
		sums := map[string]*bucketTotals{}
		for b := t - off - r + 1; b <= t-off; b += bucket {
			for k, tot := range buckets[b] {
				s := sums[k]
				if s == nil {
					s = &bucketTotals{}
					sums[k] = s
				}
				s.count += tot.count
				s.bytes += tot.bytes
			}
		}
		for k, s := range sums {
			out.vectors[i] = append(out.vectors[i], sample{labels: groups[k], v: sumValue(m, s)})
		}
	}
	return out, true, nil
}

func sumValue(m *plan.RangeAgg, s *bucketTotals) float64 {
	seconds := float64(m.Range) / 1e9
	switch m.Op {
	case "count_over_time":
		return float64(s.count)
	case "rate":
		return float64(s.count) / seconds
	case "bytes_rate":
		return float64(s.bytes) / seconds
	}
	return float64(s.bytes)
}

// fetchBuckets returns totals by bucket start and group key, and each
// group's labels.
func (ev *evaluator) fetchBuckets(ctx context.Context, m *plan.RangeAgg, by []string, labelsOf func(*backend.Row) (model.Labels, error),
	lo, hi, bucket, origin int64) (map[int64]map[string]*bucketTotals, map[string]model.Labels, error) {
	q := logsql.Query{
		Filter: logsql.And{logsql.TimeRange{Start: lo, End: hi}, m.Log.Pushdown},
		Pipes: []logsql.Pipe{logsql.BucketStats{BucketNs: bucket, OffsetNs: origin, By: by, Exclude: backend.EmptyLineField,
			NoBytes: !needsBytes(m.Op)}},
	}
	buckets := map[int64]map[string]*bucketTotals{}
	groups := map[string]model.Labels{}
	err := ev.c.Query(ctx, ev.t, backend.QueryRequest{Query: q.String()}, func(row *backend.Row) error {
		start, err := parseTime(row.Get("_time"))
		if err != nil {
			return err
		}
		labels, err := labelsOf(row)
		if err != nil {
			return err
		}
		key := labels.String()
		groups[key] = labels
		tot := &bucketTotals{}
		if tot.count, err = parseCount(row.Get("c")); err != nil {
			return err
		}
		if needsBytes(m.Op) {
			if tot.bytes, err = parseCount(row.Get("b")); err != nil {
				return err
			}
		}
		if buckets[start] == nil {
			buckets[start] = map[string]*bucketTotals{}
		}
		if prev := buckets[start][key]; prev != nil {
			// Distinct VictoriaLogs groups can make one label set.
			prev.count += tot.count
			prev.bytes += tot.bytes
			return nil
		}
		buckets[start][key] = tot
		return nil
	})
	return buckets, groups, err
}

func parseCount(b []byte) (int64, error) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("VictoriaLogs stats value %q: %w", b, err)
	}
	return n, nil
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func needsBytes(op string) bool { return op == "bytes_over_time" || op == "bytes_rate" }
