package metric

import (
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/plan"
)

// How each LogQL operator is evaluated: one row per operator logql
// registers (its syntax) and plan knows (its pushdown and sharding); a
// test fails for an operator without a row here. The functions are in
// rangefn.go, vector.go and binop.go.

// rangeEval evaluates a range aggregation from its series' samples.
type rangeEval struct {
	// window is the value of one step's window (its samples in Loki's
	// order, never empty).
	window func(m *plan.RangeAgg, ts []int64, vals []float64) float64
	// steps, when set, rewrites the steps' answers once every window has
	// its value.
	steps func(m *plan.RangeAgg, v value) value
}

var rangeEvals = map[logql.RangeOp]rangeEval{
	logql.OpCountOverTime:    {window: windowCount},
	logql.OpRate:             {window: windowRate},
	logql.OpRateCounter:      {window: windowCounterRate},
	logql.OpBytesOverTime:    {window: windowSum},
	logql.OpBytesRate:        {window: windowSumRate},
	logql.OpAvgOverTime:      {window: windowAvg},
	logql.OpSumOverTime:      {window: windowSum},
	logql.OpMinOverTime:      {window: windowMin},
	logql.OpMaxOverTime:      {window: windowMax},
	logql.OpStdvarOverTime:   {window: windowStdvar},
	logql.OpStddevOverTime:   {window: windowStddev},
	logql.OpQuantileOverTime: {window: windowQuantile},
	logql.OpFirstOverTime:    {window: windowFirst},
	logql.OpLastOverTime:     {window: windowLast},
	// A step is absent where no window has a sample.
	logql.OpAbsentOverTime: {window: windowSum, steps: absentSteps},
}

// vectorEval aggregates one step's samples per group.
type vectorEval struct {
	// fold adds a sample after the group's first, which sets the group's
	// value and mean (see newGroup).
	fold func(g *group, v float64)
	// result is the group's answer.
	result func(g *group, m *plan.VectorAgg) []sample
	// zeroFirst: the first sample leaves the value at 0 (variances sum
	// squared deviations from the mean).
	zeroFirst bool
}

var vectorEvals = map[logql.VectorOp]vectorEval{
	logql.OpSum:      {fold: foldSum, result: groupValue},
	logql.OpAvg:      {fold: foldMean, result: groupMean},
	logql.OpMin:      {fold: foldMin, result: groupValue},
	logql.OpMax:      {fold: foldMax, result: groupValue},
	logql.OpCount:    {fold: foldCount, result: groupCount},
	logql.OpStddev:   {fold: foldVariance, result: groupStddev, zeroFirst: true},
	logql.OpStdvar:   {fold: foldVariance, result: groupStdvar, zeroFirst: true},
	logql.OpTopK:     {fold: foldNothing, result: rankedDesc},
	logql.OpBottomK:  {fold: foldNothing, result: rankedAsc},
	logql.OpSort:     {fold: foldNothing, result: rankedAsc},
	logql.OpSortDesc: {fold: foldNothing, result: rankedDesc},
}

// setOps are the binary operators that match series without computing.
var setOps = map[logql.BinaryOp]func(m *plan.BinOp, lhs, rhs []sample) []sample{
	logql.OpAnd:    andSet,
	logql.OpOr:     orSet,
	logql.OpUnless: unlessSet,
}
