package metric

import (
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/read/plan"
)

// A range aggregation's step t reads the window (t-offset-range, t-offset]
// and nothing else. When the step is much longer than the range, the
// windows leave gaps no step reads: Loki's default step over 30 days
// (range/250, 2 h 52 m 48 s) with a [1m] range reads 0.6% of the span.
// Such a query reads only its windows (sparse reads): VictoriaLogs is
// asked for the rows in an OR of the windows, a batch of windows per
// query, and its buckets are a step wide (each holds one window). Reading
// the whole span instead made VictoriaLogs bucket it at gcd(step, range)
// (12 s there: about a stats group per row) or send every row.
//
// An OR of windows is not free: VictoriaLogs tests every window against
// every block of a query's time range, and each query costs a round trip.
// Measured on 200,000 lines over 30 days (docs/performance.md, "Scale
// bench"), reading the windows beat reading the whole span once they
// covered at most a quarter of it for rows (which vloki decodes and runs
// through the pipeline) and an eighth for VictoriaLogs' buckets.
const (
	sparseRowsRatio    = 4 // rows: step at least 4 ranges
	sparseBucketsRatio = 8 // buckets: step at least 8 ranges
)

// Batches: as many windows as fit in VictoriaLogs' default
// -search.maxQueryLen (16 KiB since v1.48; longer queries are refused),
// with pipeAllowance for the pipes after the filter: about 200 windows of
// 74 bytes beside a short pushdown filter. Fewer, larger batches measured
// faster than more, smaller ones. A pushdown filter leaving room for fewer
// than minWindowsPerQuery windows reads the whole span, as before.
const (
	queryLenBudget     = 16 << 10
	pipeAllowance      = 1 << 10
	maxWindowsPerQuery = 256
	minWindowsPerQuery = 8
)

// window is the time range [lo, hi] (Unix ns, both inclusive) of one
// query's rows: a step's window, or a batch's span.
type window struct{ lo, hi int64 }

func (w window) filter() logsql.TimeRange { return logsql.TimeRange{Start: w.lo, End: w.hi} }

// windowBatch is one query's windows, in time order.
type windowBatch []window

// span is the batch from its first window's start to its last's end.
func (b windowBatch) span() window { return window{b[0].lo, b[len(b)-1].hi} }

// filter is the batch's time filter: its span, which VictoriaLogs reads
// the partitions and blocks of (a top-level _time filter), and any of its
// windows.
func (b windowBatch) filter() logsql.Filter {
	if len(b) == 1 {
		return b[0].filter()
	}
	some := make(logsql.Or, len(b))
	for i, w := range b {
		some[i] = w.filter()
	}
	return logsql.And{b.span().filter(), some}
}

// stepWindows batches the windows of steps (ascending, step apart) for a
// range rng and offset off, at most per windows a batch; nil when the
// windows leave no gap or the step is less than ratio ranges (or a single
// step, or an empty range, whose windows hold nothing).
func stepWindows(steps []int64, rng, off, ratio int64, per int) []windowBatch {
	if len(steps) < 2 || rng <= 0 {
		return nil
	}
	if step := steps[1] - steps[0]; step <= rng || step < ratio*rng {
		return nil
	}
	var out []windowBatch
	for i := 0; i < len(steps); i += per {
		part := steps[i:min(i+per, len(steps))]
		b := make(windowBatch, len(part))
		for j, t := range part {
			b[j] = window{t - off - rng + 1, t - off}
		}
		out = append(out, b)
	}
	return out
}

// readBatches are the window batches m's rows are read in when its step
// is at least ratio ranges, nil when m reads its whole span.
func (ev *evaluator) readBatches(m *plan.RangeAgg, ratio int64) []windowBatch {
	if m.WholeSpan {
		return nil
	}
	per := windowsPerQuery(m.Log.Pushdown)
	if per < minWindowsPerQuery {
		return nil
	}
	return stepWindows(ev.steps, m.Range, m.Offset, ratio, per)
}

// windowsPerQuery is how many windows fit in a query beside the pushdown
// filter within queryLenBudget, at most maxWindowsPerQuery: every
// window's filter has the same length (timestamps of fixed width).
func windowsPerQuery(pushdown logsql.Filter) int {
	w := window{0, 0}
	two := logsql.Query{Filter: logsql.And{windowBatch{w, w}.filter(), pushdown}}.String()
	each := len(logsql.Query{Filter: w.filter()}.String()) + len(" OR ")
	room := queryLenBudget - pipeAllowance - len(two)
	if room < 0 {
		return 0
	}
	return min(2+room/each, maxWindowsPerQuery)
}

// readFilters are the time filters of the queries reading m's rows, one
// query each in time order: the batches', or the whole span's.
func (ev *evaluator) readFilters(m *plan.RangeAgg, batches []windowBatch) []logsql.Filter {
	if batches == nil {
		return []logsql.Filter{ev.span(m).filter()}
	}
	out := make([]logsql.Filter, len(batches))
	for i, b := range batches {
		out[i] = b.filter()
	}
	return out
}

// span is every window of m together: (first-offset-range, last-offset].
func (ev *evaluator) span(m *plan.RangeAgg) window {
	return window{ev.steps[0] - m.Offset - m.Range + 1, ev.steps[len(ev.steps)-1] - m.Offset}
}
