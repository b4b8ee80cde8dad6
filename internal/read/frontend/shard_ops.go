package frontend

import "github.com/vloki/vloki/internal/lang/logql"

// How Loki's shard mapper treats each LogQL aggregation (shard.go): one
// row per operator of logql's registry; a test fails for an operator
// without one.

// rangeSharding is how the mapper treats a range aggregation.
type rangeSharding struct {
	when shardability
	// kept: the mapper leaves it as it is (quantiles shard only with
	// sketches, first and last behind feature flags; all off by default).
	kept bool
	// merge is the vector aggregation merging its shards when the same
	// series may come from several (0: none; avg_over_time is split into
	// sums and counts instead).
	merge logql.VectorOp
}

// shardability is when Loki's Shardable holds for an operator.
type shardability uint8

const (
	shardNever shardability = iota
	shardAlways
	// shardAtTop: only when no aggregation wraps it.
	shardAtTop
)

func (s shardability) holds(top bool) bool { return s == shardAlways || (s == shardAtTop && top) }

var (
	mergedBySum = rangeSharding{when: shardAlways, merge: logql.OpSum}
	keptWhole   = rangeSharding{when: shardAlways, kept: true}
)

var rangeShards = map[logql.RangeOp]rangeSharding{
	logql.OpCountOverTime:    mergedBySum,
	logql.OpRate:             mergedBySum,
	logql.OpBytesOverTime:    mergedBySum,
	logql.OpBytesRate:        mergedBySum,
	logql.OpSumOverTime:      mergedBySum,
	logql.OpAvgOverTime:      {when: shardAlways},
	logql.OpMinOverTime:      {when: shardAlways, merge: logql.OpMin},
	logql.OpMaxOverTime:      {when: shardAlways, merge: logql.OpMax},
	logql.OpQuantileOverTime: {when: shardAtTop, kept: true},
	logql.OpFirstOverTime:    keptWhole,
	logql.OpLastOverTime:     keptWhole,
	// Never sharded.
	logql.OpStdvarOverTime: {},
	logql.OpStddevOverTime: {},
	logql.OpRateCounter:    {},
	logql.OpAbsentOverTime: {},
}

// vectorSharding is how the mapper treats a vector aggregation.
type vectorSharding struct {
	// shardable: Loki's Shardable may hold (shard.go adds its rules on
	// the operand).
	shardable bool
	// merge is the aggregation merging the shards' answers (0: none).
	merge logql.VectorOp
}

var vectorShards = map[logql.VectorOp]vectorSharding{
	logql.OpSum:        {shardable: true, merge: logql.OpSum},
	logql.OpAvg:        {shardable: true},
	logql.OpCount:      {shardable: true, merge: logql.OpSum},
	logql.OpMin:        {shardable: true, merge: logql.OpMin},
	logql.OpMax:        {shardable: true, merge: logql.OpMax},
	logql.OpApproxTopK: {shardable: true},
	// Never sharded: the frontend evaluates them over the queriers' answers.
	logql.OpStddev:   {},
	logql.OpStdvar:   {},
	logql.OpTopK:     {},
	logql.OpBottomK:  {},
	logql.OpSort:     {},
	logql.OpSortDesc: {},
}
