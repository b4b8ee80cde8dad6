package plan

import "github.com/vloki/vloki/internal/lang/logql"

// What planning knows of each range aggregation beyond its syntax (which
// is logql's registry): how VictoriaLogs computes it, if it can. (How
// Loki's frontend shards it is the frontend's row: frontend/shard_ops.go.)
// One row per operator; a test fails for an operator logql registers
// without a row here.

// rangeOpPlan is what planning knows of a range aggregation.
type rangeOpPlan struct {
	// bucket is a window's value from VictoriaLogs' stats per time bucket
	// (`count()`, and `sum_len(_msg)` for logql.RangeOp.LineBytes
	// operators) summed over the window; nil: only rows answer it.
	bucket func(count, bytes int64, seconds float64) float64
	// sumGrouping: a sum over it groups its extraction, as Loki injects
	// the sum's grouping into it.
	sumGrouping bool
}

var rangeOpPlans = map[logql.RangeOp]rangeOpPlan{
	logql.OpCountOverTime:    {bucket: bucketCount, sumGrouping: true},
	logql.OpRate:             {bucket: bucketCountRate, sumGrouping: true},
	logql.OpBytesOverTime:    {bucket: bucketBytes, sumGrouping: true},
	logql.OpBytesRate:        {bucket: bucketBytesRate, sumGrouping: true},
	logql.OpSumOverTime:      {sumGrouping: true},
	logql.OpAvgOverTime:      {},
	logql.OpMinOverTime:      {},
	logql.OpMaxOverTime:      {},
	logql.OpQuantileOverTime: {},
	logql.OpFirstOverTime:    {},
	logql.OpLastOverTime:     {},
	// Evaluated from rows only.
	logql.OpStdvarOverTime: {},
	logql.OpStddevOverTime: {},
	logql.OpRateCounter:    {},
	logql.OpAbsentOverTime: {},
}

func bucketCount(count, _ int64, _ float64) float64           { return float64(count) }
func bucketCountRate(count, _ int64, seconds float64) float64 { return float64(count) / seconds }
func bucketBytes(_, bytes int64, _ float64) float64           { return float64(bytes) }
func bucketBytesRate(_, bytes int64, seconds float64) float64 { return float64(bytes) / seconds }

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
