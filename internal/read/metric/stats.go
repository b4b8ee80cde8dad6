package metric

import (
	"context"
	"errors"
	"fmt"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/schema"
)

// maxTimeStatsSamples bounds the samples a bucket-answered sum reads for
// the frozen samples store: past it, reading them per timestamp and
// evaluating the windows in memory costs more than VictoriaLogs' buckets
// over the whole span, so the fetch stops and the input keeps its bucket
// path (the store remembers it).
const maxTimeStatsSamples = 20_000

// maxBucketsPerWindow bounds the buckets summed for one step.
const maxBucketsPerWindow = 256

// sumOfRange lets VictoriaLogs count rows and bytes per time bucket and
// group.
func (ev *evaluator) sumOfRange(ctx context.Context, m *plan.SumOfRange) (value, error) {
	groupLabels := func(row *backend.Row) (lokidata.Labels, error) {
		labels := lokidata.Labels{}
		for _, name := range m.By {
			if v := row.Get(name); len(v) > 0 {
				labels = append(labels, lokidata.Label{Name: name, Value: string(v)})
			}
		}
		labels.Sort()
		return labels, nil
	}
	under := m.Range.UnderSum(m.By)
	raw := &plan.VectorAgg{Op: logql.OpSum, Grouping: logql.Grouping{Groups: m.By}, Inner: under}
	if in, ok, err := ev.indexedWindows(ctx, under); ok || err != nil {
		return ev.aggregateSteps(raw, in), err
	}
	if under != m.Range && !m.LinesOnly {
		// Per-group samples: kept ones for the frozen part of the span.
		series, ok, err := ev.frozenSeries(ctx, under, ev.timeStats(m.By, groupLabels))
		if err != nil {
			return value{}, err
		}
		if ok {
			in, err := ev.rangeWindows(under, series)
			return ev.aggregateSteps(raw, in), err
		}
	}
	lined := true
	if m.LinesOnly {
		var err error
		if lined, err = ev.everyRowLined(ctx, m.Range); err != nil {
			return value{}, err
		}
	}
	if lined {
		v, ok, err := ev.bucketed(ctx, m.Range, m.By, groupLabels)
		if err != nil || ok {
			return v, err
		}
	}
	// Buckets too fine to be worth it, or lines only vloki can measure:
	// sum the rows instead (grouped as the sum groups: per-group counts
	// over a window, not per-stream rates added up, which round
	// otherwise).
	return ev.vectorAgg(ctx, raw)
}

// bucketGrid numbers VictoriaLogs' time buckets: bucket i starts at
// lo + i*width.
type bucketGrid struct {
	lo, width int64
}

func (g bucketGrid) index(start int64) (int, error) {
	d := start - g.lo
	if d < 0 || d%g.width != 0 {
		return 0, fmt.Errorf("VictoriaLogs bucket at %d ns is off the grid (%d + k*%d)", start, g.lo, g.width)
	}
	return int(d / g.width), nil
}

// bucketed evaluates the range aggregation from VictoriaLogs' counts and
// byte sums per time bucket and group (by). Buckets are aligned so every
// window (t-offset-range, t-offset] is a whole number of them, so the sums
// are exact: gcd(step, range) wide, or a step wide when only the windows
// are read (see readBatches). ok is false when the buckets would be too
// fine.
func (ev *evaluator) bucketed(ctx context.Context, m *plan.RangeAgg, by []string, labelsOf func(*backend.Row) (lokidata.Labels, error)) (value, bool, error) {
	batches := ev.readBatches(m, sparseBucketsRatio)
	bucket, perWindow, ok := ev.bucketWidth(m, batches != nil)
	if !ok {
		// Buckets too fine, or a single step's zero range ([0s]), whose
		// window is empty: the rows path answers.
		return value{}, false, nil
	}
	first := ev.steps[0]
	grid := bucketGrid{lo: ev.span(m).lo, width: bucket}
	groups, err := ev.fetchBuckets(ctx, m, by, labelsOf, grid, ev.readFilters(m, batches))
	if err != nil {
		return value{}, true, err
	}
	out := value{vectors: make([][]sample, len(ev.steps))}
	cells := make([]sample, len(ev.steps)*len(groups))
	for i := range out.vectors {
		out.vectors[i] = cells[i*len(groups) : i*len(groups) : (i+1)*len(groups)]
	}
	valueOf := m.WindowFromBuckets()
	for _, g := range groups {
		g.windows(ev.steps, first, bucket, perWindow, func(i int, count, bytes int64) {
			out.vectors[i] = append(out.vectors[i], sample{labels: g.labels, v: valueOf(count, bytes)})
		})
	}
	return out, true, nil
}

// bucketWidth is the width of VictoriaLogs' time buckets and the buckets
// a window spans; ok is false when the buckets would be too fine. Sparse
// reads hold only the windows' rows, and a bucket a step wide starting
// at a window's start holds that window and no other.
func (ev *evaluator) bucketWidth(m *plan.RangeAgg, sparse bool) (width int64, perWindow int, ok bool) {
	if sparse {
		return ev.req.Step, 1, true
	}
	width = m.Range
	if ev.req.Step > 0 && len(ev.steps) > 1 {
		width = gcd(ev.req.Step, m.Range)
	}
	if width <= 0 || m.Range/width > maxBucketsPerWindow {
		return 0, 0, false
	}
	return width, int(m.Range / width), true
}

// fetchBuckets returns the groups' bucket totals, groups in label order,
// read with one query per time filter. VictoriaLogs groups by the raw
// values of by; distinct raw groups can make one label set, and share one
// group. An answer on the mirrored grid (a backend release reading the
// offset with the other sign) is asked again once with the sign it showed.
func (ev *evaluator) fetchBuckets(ctx context.Context, m *plan.RangeAgg, by []string, labelsOf func(*backend.Row) (lokidata.Labels, error),
	grid bucketGrid, times []logsql.Filter) ([]*bucketGroup, error) {
	groups, mirrored, err := ev.fetchBucketsOnce(ctx, m, by, labelsOf, grid, times)
	if mirrored {
		groups, _, err = ev.fetchBucketsOnce(ctx, m, by, labelsOf, grid, times)
	}
	return groups, err
}

func (ev *evaluator) fetchBucketsOnce(ctx context.Context, m *plan.RangeAgg, by []string, labelsOf func(*backend.Row) (lokidata.Labels, error),
	grid bucketGrid, times []logsql.Filter) (groups []*bucketGroup, mirrored bool, err error) {
	offset, adds := ev.c.Dialect().BucketOffset(grid.lo, grid.width)
	pipes := []logsql.Pipe{logsql.BucketStats{BucketNs: grid.width, OffsetNs: offset,
		By: by, Lines: schema.LineBytesPipe, NoBytes: !m.Op.LineBytes()}}
	held := ev.mem.used
	idx := newGroupIndex(by, labelsOf, &ev.mem)
	for _, tf := range times {
		q := logsql.Query{Filter: logsql.And{tf, m.Log.Pushdown}, Pipes: pipes}
		mirrored, err = ev.bucketQuery(ctx, m, q, grid, adds, idx)
		if mirrored {
			ev.mem.used = held // the partial answer is dropped
			return nil, true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	return idx.sorted(), false, nil
}

// bucketQuery adds one query's stats rows to their groups' cells;
// mirrored reports an answer on the mirrored grid (see fetchBuckets).
func (ev *evaluator) bucketQuery(ctx context.Context, m *plan.RangeAgg, q logsql.Query, grid bucketGrid, adds bool, idx *groupIndex) (mirrored bool, err error) {
	err = ev.c.Query(ctx, ev.t, backend.QueryRequest{Query: q.String()}, func(row *backend.Row) error {
		start, err := logrow.ParseTime(row.Get("_time"))
		if err != nil {
			return err
		}
		cell := bucketCell{}
		if cell.idx, err = grid.index(start); err != nil {
			if ev.c.Dialect().MirroredBuckets(start, grid.lo, grid.width, adds) {
				mirrored = true
				return errMirrored
			}
			return err
		}
		if cell.count, err = logrow.ParseCount(row.Get("c")); err != nil {
			return err
		}
		if m.Op.LineBytes() {
			if cell.bytes, err = logsql.ParseLineBytes(row.Get("b"), row.Get("b0")); err != nil {
				return err
			}
		}
		g, err := idx.group(row)
		if err != nil {
			return err
		}
		if err := ev.mem.take(cellBytes); err != nil {
			return err
		}
		g.cells = append(g.cells, cell)
		return nil
	})
	return mirrored, err
}

// errMirrored stops reading an answer on the mirrored bucket grid.
var errMirrored = errors.New("VictoriaLogs buckets on the mirrored grid")

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// everyRowLined reports that no row the range aggregation reads was stored
// without a line (other agents' rows whose line vloki rebuilds).
func (ev *evaluator) everyRowLined(ctx context.Context, m *plan.RangeAgg) (bool, error) {
	noLine := logsql.And{logsql.Exact{Field: "_msg", Value: m.Log.Foreign.MissingMsg}, logsql.Not{F: logsql.Exact{Field: schema.EmptyLineField, Value: "1"}}}
	found := false
	for _, tf := range ev.readFilters(m, ev.readBatches(m, sparseBucketsRatio)) {
		q := logsql.Query{Filter: logsql.And{tf, m.Log.Pushdown, noLine}, Pipes: []logsql.Pipe{logsql.Limit(1)}}
		err := ev.c.Query(ctx, ev.t, backend.QueryRequest{Query: q.String()}, func(*backend.Row) error {
			found = true
			return nil
		})
		if err != nil || found {
			return !found, err
		}
	}
	return true, nil
}
