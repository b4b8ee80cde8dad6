package frontend

import (
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/plan"
)

// TestEveryOpHasAShardRow fails for an operator logql registers without a
// shard row here, or a row that contradicts another.
func TestEveryOpHasAShardRow(t *testing.T) {
	for _, op := range logql.RangeOps() {
		row, ok := rangeShards[op]
		switch {
		case !ok:
			t.Errorf("%s: no row in rangeShards", op)
		case row.merge != 0 && !vectorShards[row.merge].shardable:
			t.Errorf("%s: merged by %s, which does not shard", op, row.merge)
		}
	}
	for _, op := range logql.VectorOps() {
		if _, ok := vectorShards[op]; !ok {
			t.Errorf("%s: no row in vectorShards", op)
		}
	}
	if len(rangeShards) != len(logql.RangeOps()) || len(vectorShards) != len(logql.VectorOps()) {
		t.Errorf("rows for operators logql does not register")
	}
}

// TestRangeOpPlans checks what the rows decide for each range
// aggregation: grouped by a label (its own grouping, or a sum's), Loki's
// frontend merges shards with a vector aggregation, splits avg_over_time
// into sums and counts, or hands the whole query to one querier (q);
// VictoriaLogs' buckets answer a sum of counts or line bytes; a sum's
// grouping is injected into the extraction of the range aggregations
// Loki injects it into.
func TestRangeOpPlans(t *testing.T) {
	want := map[logql.RangeOp]string{
		logql.OpCountOverTime:    "q(buckets)",
		logql.OpRate:             "q(buckets)",
		logql.OpBytesOverTime:    "q(buckets)",
		logql.OpBytesRate:        "q(buckets)",
		logql.OpSumOverTime:      "q(sum(range by (a)))",
		logql.OpRateCounter:      "q(sum(range))",
		logql.OpAbsentOverTime:   "q(sum(range by ()))",
		logql.OpAvgOverTime:      "q(sum(range by (a)))/q(buckets)",
		logql.OpMinOverTime:      "min(q(range by (a)))",
		logql.OpMaxOverTime:      "max(q(range by (a)))",
		logql.OpStdvarOverTime:   "q(range by (a))",
		logql.OpStddevOverTime:   "q(range by (a))",
		logql.OpQuantileOverTime: "q(range by (a))",
		logql.OpFirstOverTime:    "q(range by (a))",
		logql.OpLastOverTime:     "q(range by (a))",
	}
	for _, op := range logql.RangeOps() {
		q := op.String() + "("
		if op.TakesParam() {
			q += "0.5, "
		}
		q += `{app="x"}`
		if op.UnwrapRule() == logql.UnwrapRequired {
			q += " | unwrap v"
		}
		q += " [1m])"
		if op.TakesGrouping() {
			q += " by (a)"
		} else {
			q = "sum by (a) (" + q + ")"
		}
		e, err := logql.ParseExpr(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		m, err := plan.CompileMetric(Shard(e.(logql.SampleExpr)), nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := shape(m); got != want[op] {
			t.Errorf("%s: planned %s, want %s", q, got, want[op])
		}
	}
}

// TestVectorOpPlans checks the shard rows: an aggregation without () of
// a range aggregation is handed to a querier and its shards merged by
// the row's aggregation; avg is split into a sum and a count; the
// frontend evaluates the others over what queriers answer for the range
// aggregation.
func TestVectorOpPlans(t *testing.T) {
	want := map[logql.VectorOp]string{
		logql.OpSum:      "sum(q(sum(range without ())))",
		logql.OpCount:    "sum(q(count(range)))",
		logql.OpMin:      "min(q(min(range)))",
		logql.OpMax:      "max(q(max(range)))",
		logql.OpAvg:      "sum(q(sum(range without ())))/sum(q(count(range)))",
		logql.OpStddev:   "stddev(q(range))",
		logql.OpStdvar:   "stdvar(q(range))",
		logql.OpTopK:     "topk(q(range))",
		logql.OpBottomK:  "bottomk(q(range))",
		logql.OpSort:     "sort(q(range))",
		logql.OpSortDesc: "sort_desc(q(range))",
	}
	for _, op := range logql.VectorOps() {
		param := ""
		if op.TakesParam() {
			param = "2, "
		}
		q := op.String() + " without () (" + param + `count_over_time({app="x"} | json [1m]))`
		if op.Refusal() != nil {
			q = op.String() + "(" + param + `count_over_time({app="x"} | json [1m]))`
		}
		e, err := logql.ParseExpr(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		m, err := plan.CompileMetric(Shard(e.(logql.SampleExpr)), nil)
		if op.Refusal() != nil {
			if err == nil {
				t.Errorf("%s: planned, though vloki does not evaluate it", q)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := shape(m); got != want[op] {
			t.Errorf("%s: planned %s, want %s", q, got, want[op])
		}
	}
}

// shape prints a plan's tree: q() marks what a querier answers.
func shape(m plan.Metric) string {
	switch m := m.(type) {
	case *plan.QuerierAnswer:
		return "q(" + shape(m.Inner) + ")"
	case *plan.VectorAgg:
		return m.Op.String() + "(" + shape(m.Inner) + ")"
	case *plan.BinOp:
		return shape(m.LHS) + m.Op.String() + shape(m.RHS)
	case *plan.SumOfRange:
		return "buckets"
	case *plan.RangeAgg:
		if g := m.Grouping; g != nil {
			return "range" + g.String()
		}
		return "range"
	}
	return "?"
}
