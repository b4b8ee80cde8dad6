package exec

import (
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/logsql"
	"github.com/vloki/vloki/internal/plan"
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
		per       int
		wantSizes []int // nil: the whole span is read
	}{
		{"step equals range", steps(5, minute), minute, 0, 64, nil},
		{"step below range", steps(5, minute), 5 * minute, 0, 64, nil},
		{"single step", steps(1, 0), minute, 0, 64, nil},
		{"zero range", steps(5, 3*minute), 0, 0, 64, nil},
		{"step above range", steps(5, 61*int64(time.Second)), minute, 0, 64, []int{5}},
		{"batched", steps(7, 3*minute), minute, 2 * minute, 3, []int{3, 3, 1}},
		{"negative offset", steps(4, 3*minute), minute, -5 * minute, 2, []int{2, 2}},
	} {
		got := stepWindows(c.steps, c.rng, c.off, c.per)
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
	m := &plan.RangeAgg{Op: "count_over_time", Range: 60 * sec, Offset: 0,
		Log: &plan.LogQuery{Pushdown: logsql.StreamFilter{Matchers: []logsql.StreamMatcher{{Label: "app", Op: logsql.StreamEq, Value: "a"}}}}}
	ev := &evaluator{req: MetricRequest{Step: 600 * sec}, steps: []int64{600 * sec, 1200 * sec, 1800 * sec}}
	got := filterTexts(ev.readFilters(m, ev.readBatches(m)))
	want := []string{"(_time:[1970-01-01T00:09:00.000000001Z, 1970-01-01T00:30:00.000000000Z] AND " +
		"(_time:[1970-01-01T00:09:00.000000001Z, 1970-01-01T00:10:00.000000000Z] OR " +
		"_time:[1970-01-01T00:19:00.000000001Z, 1970-01-01T00:20:00.000000000Z] OR " +
		"_time:[1970-01-01T00:29:00.000000001Z, 1970-01-01T00:30:00.000000000Z]))"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sparse:\n got %s\nwant %s", got, want)
	}
	m.WholeSpan = true
	got = filterTexts(ev.readFilters(m, ev.readBatches(m)))
	if want := "_time:[1970-01-01T00:09:00.000000001Z, 1970-01-01T00:30:00.000000000Z]"; len(got) != 1 || got[0] != want {
		t.Fatalf("whole span: got %s, want %s", got, want)
	}
}

// TestReadBatchesFitQueryLength checks that a pushdown filter too long to
// share a query with a batch of windows makes the query read its whole
// span, as it did before sparse reads: VictoriaLogs refuses queries over
// -search.maxQueryLen.
func TestReadBatchesFitQueryLength(t *testing.T) {
	sec := int64(time.Second)
	var steps []int64
	for i := range 200 {
		steps = append(steps, int64(i+1)*600*sec)
	}
	ev := &evaluator{req: MetricRequest{Step: 600 * sec}, steps: steps}
	short := &plan.RangeAgg{Range: 60 * sec, Log: &plan.LogQuery{Pushdown: logsql.Regexp{Field: "_msg", Re: "x"}}}
	batches := ev.readBatches(short)
	if len(batches) != 4 {
		t.Fatalf("%d batches of 200 windows, want 4", len(batches))
	}
	for _, b := range batches {
		if n := len(logsql.Query{Filter: logsql.And{b.filter(), short.Log.Pushdown}}.String()); n+pipeAllowance > queryLenBudget {
			t.Fatalf("a batch's query is %d bytes", n)
		}
	}
	long := &plan.RangeAgg{Range: 60 * sec, Log: &plan.LogQuery{Pushdown: logsql.Regexp{Field: "_msg", Re: strings.Repeat("y", 12<<10)}}}
	if got := ev.readBatches(long); got != nil {
		t.Fatalf("a 12 KiB pushdown still reads %d batches", len(got))
	}
}

func filterTexts(fs []logsql.Filter) []string {
	var out []string
	for _, f := range fs {
		out = append(out, logsql.Query{Filter: f}.String())
	}
	return out
}
