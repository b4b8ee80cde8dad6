package plan

import "github.com/vloki/vloki/internal/logql"

// What planning knows of each LogQL aggregation beyond its syntax (which
// is logql's registry): how VictoriaLogs computes it, if it can, and how
// Loki's frontend shards it (frontend.go). One row per operator; a test
// fails for an operator logql registers without a row here.

// rangeOpPlan is what planning knows of a range aggregation.
type rangeOpPlan struct {
	// bucket is a window's value from VictoriaLogs' stats per time bucket
	// (`count()`, and `sum_len(_msg)` for logql.RangeOp.LineBytes
	// operators) summed over the window; nil: only rows answer it.
	bucket func(count, bytes int64, seconds float64) float64
	// sumGrouping: a sum over it groups its extraction, as Loki injects
	// the sum's grouping into it.
	sumGrouping bool
	shard       rangeSharding
}

// rangeSharding is how Loki's shard mapper treats a range aggregation.
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

var rangeOpPlans = map[logql.RangeOp]rangeOpPlan{
	logql.OpCountOverTime:    {bucket: bucketCount, sumGrouping: true, shard: mergedBySum},
	logql.OpRate:             {bucket: bucketCountRate, sumGrouping: true, shard: mergedBySum},
	logql.OpBytesOverTime:    {bucket: bucketBytes, sumGrouping: true, shard: mergedBySum},
	logql.OpBytesRate:        {bucket: bucketBytesRate, sumGrouping: true, shard: mergedBySum},
	logql.OpSumOverTime:      {sumGrouping: true, shard: mergedBySum},
	logql.OpAvgOverTime:      {shard: rangeSharding{when: shardAlways}},
	logql.OpMinOverTime:      {shard: rangeSharding{when: shardAlways, merge: logql.OpMin}},
	logql.OpMaxOverTime:      {shard: rangeSharding{when: shardAlways, merge: logql.OpMax}},
	logql.OpQuantileOverTime: {shard: rangeSharding{when: shardAtTop, kept: true}},
	logql.OpFirstOverTime:    {shard: keptWhole},
	logql.OpLastOverTime:     {shard: keptWhole},
	// Evaluated from rows only, and never sharded.
	logql.OpStdvarOverTime: {},
	logql.OpStddevOverTime: {},
	logql.OpRateCounter:    {},
	logql.OpAbsentOverTime: {},
}

func bucketCount(count, _ int64, _ float64) float64           { return float64(count) }
func bucketCountRate(count, _ int64, seconds float64) float64 { return float64(count) / seconds }
func bucketBytes(_, bytes int64, _ float64) float64           { return float64(bytes) }
func bucketBytesRate(_, bytes int64, seconds float64) float64 { return float64(bytes) / seconds }

// vectorOpPlan is what planning knows of a vector aggregation.
type vectorOpPlan struct {
	// shardable: Loki's Shardable may hold (frontend.go adds its rules on
	// the operand).
	shardable bool
	// shardMerge is the aggregation merging the shards' answers (0: none).
	shardMerge logql.VectorOp
}

var vectorOpPlans = map[logql.VectorOp]vectorOpPlan{
	logql.OpSum:        {shardable: true, shardMerge: logql.OpSum},
	logql.OpAvg:        {shardable: true},
	logql.OpCount:      {shardable: true, shardMerge: logql.OpSum},
	logql.OpMin:        {shardable: true, shardMerge: logql.OpMin},
	logql.OpMax:        {shardable: true, shardMerge: logql.OpMax},
	logql.OpApproxTopK: {shardable: true},
	// Never sharded: the frontend evaluates them over the queriers' answers.
	logql.OpStddev:   {},
	logql.OpStdvar:   {},
	logql.OpTopK:     {},
	logql.OpBottomK:  {},
	logql.OpSort:     {},
	logql.OpSortDesc: {},
}

// WindowFromBuckets returns how a window's value follows from
// VictoriaLogs' count of its rows and the bytes of their lines (see
// SumOfRange); nil when the buckets cannot answer.
func (ra *RangeAgg) WindowFromBuckets() func(count, bytes int64) float64 {
	bucket := rangeOpPlans[ra.Op].bucket
	if bucket == nil {
		return nil
	}
	seconds := float64(ra.Range) / 1e9
	return func(count, bytes int64) float64 { return bucket(count, bytes, seconds) }
}

// Bucketable reports that VictoriaLogs' stats buckets can answer the
// operator.
func Bucketable(op logql.RangeOp) bool { return rangeOpPlans[op].bucket != nil }
