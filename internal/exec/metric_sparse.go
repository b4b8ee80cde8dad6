package exec

import (
	"github.com/vloki/vloki/internal/logsql"
	"github.com/vloki/vloki/internal/plan"
)

// A range aggregation's step t reads the window (t-offset-range, t-offset]
// and nothing else. When the step is longer than the range, the windows
// leave gaps no step reads: Loki's default step over 30 days (range/250,
// 2 h 52 m 48 s) with a [1m] range reads 0.6% of the span. Such a query
// reads only its windows (sparse reads): VictoriaLogs is asked for rows
// in an OR of the windows, a batch of windows per query, and its buckets
// are a step wide (each holds one window). Reading the whole span instead
// made VictoriaLogs bucket it at gcd(step, range) (12 s there: a stats
// group per row at 200,000 lines over 30 days) or send every row.

// maxWindowsPerQuery bounds the windows one query ORs together.
// VictoriaLogs tests each window of the OR against each block of the
// query's time range, so a batch costs it blocks × windows; each query
// costs a round trip. 64 windows make about 4.7 KB of LogsQL.
const maxWindowsPerQuery = 64

// queryLenBudget is VictoriaLogs' default -search.maxQueryLen (16 KiB,
// since v1.48): longer queries are refused. A sparse read whose query
// would pass it, with pipeAllowance for the pipes after the filter,
// reads the whole span instead, as it did before.
const (
	queryLenBudget = 16 << 10
	pipeAllowance  = 1 << 10
)

// window is the time range [lo, hi] (Unix ns, both inclusive) of one
// query's rows: a step's window, or a batch's span.
type window struct{ lo, hi int64 }

func (w window) filter() logsql.TimeRange { return logsql.TimeRange{Start: w.lo, End: w.hi} }

// windowBatch is one query's windows, in time order.
type windowBatch []window

// span is the batch from its first window's start to its last's end:
// VictoriaLogs reads the partitions and blocks of a top-level _time
// filter only.
func (b windowBatch) span() window { return window{b[0].lo, b[len(b)-1].hi} }

// filter is the batch's time filter: its span, and any of its windows.
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
// windows leave no gap (step at most the range, a single step, or an
// empty range, whose windows hold nothing).
func stepWindows(steps []int64, rng, off int64, per int) []windowBatch {
	if len(steps) < 2 || rng <= 0 || steps[1]-steps[0] <= rng {
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

// readBatches are the window batches m's rows are read in, nil when m
// reads its whole span (windows without gaps, or a query that would be
// too long for VictoriaLogs beside m's pushdown filter).
func (ev *evaluator) readBatches(m *plan.RangeAgg) []windowBatch {
	if m.WholeSpan {
		return nil
	}
	batches := stepWindows(ev.steps, m.Range, m.Offset, maxWindowsPerQuery)
	for _, b := range batches {
		q := logsql.Query{Filter: logsql.And{b.filter(), m.Log.Pushdown}}
		if len(q.String())+pipeAllowance > queryLenBudget {
			return nil
		}
	}
	return batches
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
