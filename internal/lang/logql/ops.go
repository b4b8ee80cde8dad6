package logql

import (
	"net/http"
	"strconv"
)

// The operator registry: every range and vector aggregation is a typed
// constant with one row here holding what the language says of it. The
// planner (plan/ops.go) and the evaluator (read/metric/ops.go) keep their
// own behaviour per operator in one table each, keyed by these constants;
// their tests fail for an operator registered here but missing there.

// RangeOp is a range aggregation: `count_over_time(...)`, `rate(...)`, ...
type RangeOp uint8

// The range aggregations.
const (
	OpCountOverTime RangeOp = iota + 1
	OpRate
	OpRateCounter
	OpBytesOverTime
	OpBytesRate
	OpAvgOverTime
	OpSumOverTime
	OpMinOverTime
	OpMaxOverTime
	OpStdvarOverTime
	OpStddevOverTime
	OpQuantileOverTime
	OpFirstOverTime
	OpLastOverTime
	OpAbsentOverTime
	rangeOpEnd
)

// UnwrapRule says whether a range aggregation reads `| unwrap`.
type UnwrapRule uint8

// The unwrap rules.
const (
	// UnwrapForbidden: the samples are the entries (or their line bytes).
	UnwrapForbidden UnwrapRule = iota
	// UnwrapAllowed: with an unwrap the samples are its values.
	UnwrapAllowed
	// UnwrapRequired: the samples are always an unwrapped label's values.
	UnwrapRequired
)

// rangeSyntax is what LogQL's grammar and validation say of a range
// aggregation.
type rangeSyntax struct {
	name   string
	unwrap UnwrapRule
	// param: a leading number (quantile_over_time's quantile) is required;
	// the others refuse one.
	param bool
	// grouping: by/without may follow the call.
	grouping bool
	// lineBytes: without unwrap a sample is its line's length in bytes.
	lineBytes bool
}

var rangeOps = [rangeOpEnd]rangeSyntax{
	OpCountOverTime:    {name: "count_over_time"},
	OpRate:             {name: "rate", unwrap: UnwrapAllowed},
	OpRateCounter:      {name: "rate_counter", unwrap: UnwrapRequired},
	OpBytesOverTime:    {name: "bytes_over_time", lineBytes: true},
	OpBytesRate:        {name: "bytes_rate", lineBytes: true},
	OpAvgOverTime:      {name: "avg_over_time", unwrap: UnwrapRequired, grouping: true},
	OpSumOverTime:      {name: "sum_over_time", unwrap: UnwrapRequired},
	OpMinOverTime:      {name: "min_over_time", unwrap: UnwrapRequired, grouping: true},
	OpMaxOverTime:      {name: "max_over_time", unwrap: UnwrapRequired, grouping: true},
	OpStdvarOverTime:   {name: "stdvar_over_time", unwrap: UnwrapRequired, grouping: true},
	OpStddevOverTime:   {name: "stddev_over_time", unwrap: UnwrapRequired, grouping: true},
	OpQuantileOverTime: {name: "quantile_over_time", unwrap: UnwrapRequired, param: true, grouping: true},
	OpFirstOverTime:    {name: "first_over_time", unwrap: UnwrapRequired, grouping: true},
	OpLastOverTime:     {name: "last_over_time", unwrap: UnwrapRequired, grouping: true},
	OpAbsentOverTime:   {name: "absent_over_time", unwrap: UnwrapAllowed},
}

var rangeOpsByName = indexNames(RangeOps())

// RangeOps lists the range aggregations.
func RangeOps() []RangeOp { return opsUpTo(rangeOpEnd) }

// LookupRangeOp returns the range aggregation of that (lower-case) name.
func LookupRangeOp(name string) (RangeOp, bool) {
	op, ok := rangeOpsByName[name]
	return op, ok
}

// row is op's row; an invalid op's is empty.
func (op RangeOp) row() *rangeSyntax {
	if op < rangeOpEnd {
		return &rangeOps[op]
	}
	return &rangeSyntax{}
}

func (op RangeOp) String() string { return nameOr(op.row().name, "RangeOp", op) }

// UnwrapRule is whether the aggregation reads `| unwrap`.
func (op RangeOp) UnwrapRule() UnwrapRule { return op.row().unwrap }

// TakesParam reports quantile_over_time's leading quantile.
func (op RangeOp) TakesParam() bool { return op.row().param }

// TakesGrouping reports that by/without may follow the call.
func (op RangeOp) TakesGrouping() bool { return op.row().grouping }

// LineBytes reports that, without unwrap, a sample is its line's length
// in bytes (bytes_over_time, bytes_rate): the line as the pipeline leaves
// it matters, not only that the entry is there.
func (op RangeOp) LineBytes() bool { return op.row().lineBytes }

// VectorOp is a vector aggregation: `sum(...)`, `topk(...)`, ...
type VectorOp uint8

// The vector aggregations.
const (
	OpSum VectorOp = iota + 1
	OpAvg
	OpMin
	OpMax
	OpCount
	OpStddev
	OpStdvar
	OpTopK
	OpBottomK
	OpSort
	OpSortDesc
	OpApproxTopK
	vectorOpEnd
)

// groupingRule is what by/without a vector aggregation accepts.
type groupingRule uint8

const (
	groupingAny groupingRule = iota
	// groupingNoLabels: by/without, but no label in it (sort, sort_desc).
	groupingNoLabels
	// groupingNone: no by/without at all (approx_topk).
	groupingNone
)

// vectorSyntax is what LogQL's grammar and validation say of a vector
// aggregation, and whether Loki runs it.
type vectorSyntax struct {
	name string
	// param: a leading positive integer k is required (topk and kin); the
	// others refuse a parameter.
	param    bool
	grouping groupingRule
	// sortsByValue: an instant answer keeps its samples in value order.
	sortsByValue bool
	// literalOnQuerier: Loki's frontend hands it to a querier even over a
	// bare number, which the querier reads as a selector without matchers.
	literalOnQuerier bool
	// refusal: Loki parses it but refuses to run it with its defaults.
	refusal *RefusedError
}

var vectorOps = [vectorOpEnd]vectorSyntax{
	OpSum:      {name: "sum", literalOnQuerier: true},
	OpAvg:      {name: "avg", literalOnQuerier: true},
	OpMin:      {name: "min"},
	OpMax:      {name: "max"},
	OpCount:    {name: "count", literalOnQuerier: true},
	OpStddev:   {name: "stddev"},
	OpStdvar:   {name: "stdvar"},
	OpTopK:     {name: "topk", param: true},
	OpBottomK:  {name: "bottomk", param: true},
	OpSort:     {name: "sort", grouping: groupingNoLabels, sortsByValue: true},
	OpSortDesc: {name: "sort_desc", grouping: groupingNoLabels, sortsByValue: true},
	// shard_aggregations is empty by default.
	OpApproxTopK: {name: "approx_topk", param: true, grouping: groupingNone,
		refusal: &RefusedError{Status: http.StatusInternalServerError, Msg: "approx_topk is not enabled. See -limits.shard_aggregations"}},
}

var vectorOpsByName = indexNames(VectorOps())

// VectorOps lists the vector aggregations.
func VectorOps() []VectorOp { return opsUpTo(vectorOpEnd) }

// LookupVectorOp returns the vector aggregation of that (lower-case) name.
func LookupVectorOp(name string) (VectorOp, bool) {
	op, ok := vectorOpsByName[name]
	return op, ok
}

// row is op's row; an invalid op's is empty.
func (op VectorOp) row() *vectorSyntax {
	if op < vectorOpEnd {
		return &vectorOps[op]
	}
	return &vectorSyntax{}
}

func (op VectorOp) String() string { return nameOr(op.row().name, "VectorOp", op) }

// TakesParam reports the leading k of topk, bottomk and approx_topk.
func (op VectorOp) TakesParam() bool { return op.row().param }

// SortsByValue reports sort and sort_desc, which make Loki keep an
// instant vector in value order.
func (op VectorOp) SortsByValue() bool { return op.row().sortsByValue }

// Refusal is Loki's answer to a query using op, nil when Loki runs it.
func (op VectorOp) Refusal() error {
	if r := op.row().refusal; r != nil {
		return r
	}
	return nil
}

// opsUpTo lists the constants 1 ... end-1 of an operator type.
func opsUpTo[T ~uint8](end T) []T {
	out := make([]T, 0, end-1)
	for op := T(1); op < end; op++ {
		out = append(out, op)
	}
	return out
}

func indexNames[T interface {
	~uint8
	String() string
}](ops []T) map[string]T {
	m := make(map[string]T, len(ops))
	for _, op := range ops {
		m[op.String()] = op
	}
	return m
}

// nameOr is an operator's name, or its type and number when it has none
// (the zero value, or one missing its row).
func nameOr[T ~uint8](name, typ string, op T) string {
	if name != "" {
		return name
	}
	return typ + "(" + strconv.Itoa(int(op)) + ")"
}
