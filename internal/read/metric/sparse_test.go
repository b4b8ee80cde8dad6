package metric

import (
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/read/plan"
)

// TestStepWindows checks which steps read only their windows and how the
// windows are batched: each (t-offset-range, t-offset], in step order.
func TestStepWindows(t *testing.T) {
	minute := int64(time.Minute)
	steps := func(n int, step int64) []int64 {
		var out []int64
		for i := range n {
			out = append(out, 1000*minute+int64(i)*step)
		}
		return out
	}
	for _, c := range []struct {
		name      string
		steps     []int64
		rng, off  int64
		ratio     int64
		per       int
		wantSizes []int // nil: the whole span is read
	}{
		{"step equals range", steps(5, minute), minute, 0, 1, 64, nil},
		{"step below range", steps(5, minute), 5 * minute, 0, 1, 64, nil},
		{"single step", steps(1, 0), minute, 0, 1, 64, nil},
		{"zero range", steps(5, 3*minute), 0, 0, 1, 64, nil},
		{"step just above range", steps(5, 61*int64(time.Second)), minute, 0, 1, 64, []int{5}},
		{"step below the ratio", steps(5, 4*minute), minute, 0, sparseBucketsRatio, 64, nil},
		{"step at the ratio", steps(5, 4*minute), minute, 0, sparseRowsRatio, 64, []int{5}},
		{"batched", steps(7, 8*minute), minute, 2 * minute, 8, 3, []int{3, 3, 1}},
		{"negative offset", steps(4, 8*minute), minute, -5 * minute, 8, 2, []int{2, 2}},
	} {
		got := stepWindows(c.steps, c.rng, c.off, c.ratio, c.per)
		if len(got) != len(c.wantSizes) {
			t.Fatalf("%s: %d batches, want %d", c.name, len(got), len(c.wantSizes))
		}
		i := 0
		for k, b := range got {
			if len(b) != c.wantSizes[k] {
				t.Fatalf("%s: batch %d holds %d windows, want %d", c.name, k, len(b), c.wantSizes[k])
			}
			for _, w := range b {
				st := c.steps[i]
				if w.lo != st-c.off-c.rng+1 || w.hi != st-c.off {
					t.Fatalf("%s: window %d is [%d, %d], want (%d, %d]", c.name, i, w.lo, w.hi, st-c.off-c.rng, st-c.off)
				}
				i++
			}
		}
		if c.wantSizes != nil && i != len(c.steps) {
			t.Fatalf("%s: %d windows for %d steps", c.name, i, len(c.steps))
		}
	}
}

// TestReadFilters checks the LogsQL of sparse reads: each batch's span as
// a top-level _time filter (VictoriaLogs prunes partitions and blocks by
// it) and its windows ORed; the whole span otherwise.
func TestReadFilters(t *testing.T) {
	sec := int64(time.Second)
	m := &plan.RangeAgg{Op: logql.OpCountOverTime, Range: 60 * sec, Offset: 0,
		Log: &plan.LogQuery{Pushdown: logsql.StreamFilter{Matchers: []logsql.StreamMatcher{{Label: "app", Op: logsql.StreamEq, Value: "a"}}}}}
	ev := &evaluator{req: Request{Step: 600 * sec}, steps: []int64{600 * sec, 1200 * sec, 1800 * sec}}
	got := filterTexts(ev.readFilters(m, ev.readBatches(m, sparseBucketsRatio)))
	want := []string{"(_time:[1970-01-01T00:09:00.000000001Z, 1970-01-01T00:30:00.000000000Z] AND " +
		"(_time:[1970-01-01T00:09:00.000000001Z, 1970-01-01T00:10:00.000000000Z] OR " +
		"_time:[1970-01-01T00:19:00.000000001Z, 1970-01-01T00:20:00.000000000Z] OR " +
		"_time:[1970-01-01T00:29:00.000000001Z, 1970-01-01T00:30:00.000000000Z]))"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sparse:\n got %s\nwant %s", got, want)
	}
	m.WholeSpan = true
	got = filterTexts(ev.readFilters(m, ev.readBatches(m, sparseBucketsRatio)))
	if want := "_time:[1970-01-01T00:09:00.000000001Z, 1970-01-01T00:30:00.000000000Z]"; len(got) != 1 || got[0] != want {
		t.Fatalf("whole span: got %s, want %s", got, want)
	}
}

// TestReadBatchesFitQueryLength checks that every batch's query fits in
// VictoriaLogs' default -search.maxQueryLen beside the pushdown filter,
// batches shrinking as the filter grows, and that a filter leaving room
// for too few windows makes the query read its whole span, as it did
// before sparse reads.
func TestReadBatchesFitQueryLength(t *testing.T) {
	sec := int64(time.Second)
	var steps []int64
	for i := range 1000 {
		steps = append(steps, int64(i+1)*600*sec)
	}
	ev := &evaluator{req: Request{Step: 600 * sec}, steps: steps}
	prev := maxWindowsPerQuery + 1
	for _, n := range []int{1, 4 << 10, 12 << 10} {
		m := &plan.RangeAgg{Range: 60 * sec, Log: &plan.LogQuery{Pushdown: logsql.Regexp{Field: "_msg", Re: strings.Repeat("y", n)}}}
		batches := ev.readBatches(m, sparseBucketsRatio)
		windows := 0
		for _, b := range batches {
			windows += len(b)
			if q := (logsql.Query{Filter: logsql.And{b.filter(), m.Log.Pushdown}}).String(); len(q)+pipeAllowance > queryLenBudget {
				t.Fatalf("pushdown of %d bytes: a batch's query is %d bytes", n, len(q))
			}
		}
		if windows != len(steps) || len(batches[0]) >= prev {
			t.Fatalf("pushdown of %d bytes: %d windows in batches of %d (previous %d)", n, windows, len(batches[0]), prev)
		}
		prev = len(batches[0])
	}
	long := &plan.RangeAgg{Range: 60 * sec, Log: &plan.LogQuery{Pushdown: logsql.Regexp{Field: "_msg", Re: strings.Repeat("y", 15<<10)}}}
	if got := ev.readBatches(long, sparseBucketsRatio); got != nil {
		t.Fatalf("a 15 KiB pushdown still reads %d batches", len(got))
	}
}

func filterTexts(fs []logsql.Filter) []string {
	var out []string
	for _, f := range fs {
		out = append(out, logsql.Query{Filter: f}.String())
	}
	return out
}
