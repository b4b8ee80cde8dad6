package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vloki/vloki/internal/logql"
)

// Metric is a compiled metric expression.
type Metric interface{ metric() }

// RangeAgg is count_over_time, rate, bytes_over_time or bytes_rate over a
// log query, computed from its rows.
type RangeAgg struct {
	Op     string
	Log    *LogQuery
	Range  int64 // ns
	Offset int64 // ns
	// Hints limit what parsers extract, as Loki's parser hints do.
	Hints *ParserHints
}

// ParserHints are Loki's parser label hints for a metric query: when a sum
// wraps the range aggregation, parsers extract only the labels it groups by
// and single-label filters name; with no such labels they do not run.
// The hints also decide whether __error__ is an error or a grouping label.
type ParserHints struct {
	NoLabels      bool
	Required      []string // nil: extract everything
	PreserveError bool
}

// VectorAgg aggregates the samples of each step.
type VectorAgg struct {
	Op       string
	Grouping logql.Grouping
	Param    float64
	Inner    Metric
}

// BinOp combines two metrics.
type BinOp struct {
	Op       string
	LHS, RHS Metric
	Bool     bool
	Matching *logql.VectorMatching
}

// SumOfRange is `sum by (labels) (<range aggregation>)` computed inside
// VictoriaLogs: counts and byte sums per time bucket and label group.
type SumOfRange struct {
	Range *RangeAgg
	By    []string
}

// Scalar is a number.
type Scalar struct{ V float64 }

// Vector is vector(V): one series without labels at every step.
type Vector struct{ V float64 }

func (*RangeAgg) metric()   {}
func (*VectorAgg) metric()  {}
func (*BinOp) metric()      {}
func (*Scalar) metric()     {}
func (*SumOfRange) metric() {}
func (*Vector) metric()     {}

// evaluableRangeOps are the range aggregations this slice computes.
var evaluableRangeOps = map[string]bool{"count_over_time": true, "rate": true, "bytes_over_time": true, "bytes_rate": true}

// evaluableVectorOps are the vector aggregations this slice computes.
var evaluableVectorOps = map[string]bool{
	"sum": true, "avg": true, "min": true, "max": true, "count": true, "stddev": true, "stdvar": true,
	"topk": true, "bottomk": true, "sort": true, "sort_desc": true,
}

// CompileMetric plans a metric expression.
func CompileMetric(e logql.SampleExpr) (Metric, error) {
	switch e := e.(type) {
	case *logql.LiteralExpr:
		return &Scalar{V: e.Val}, nil
	case *logql.VectorExpr:
		return &Vector{V: e.Val}, nil
	case *logql.RangeAggregationExpr:
		return compileRangeAgg(e)
	case *logql.VectorAggregationExpr:
		return compileVectorAgg(e)
	case *logql.BinOpExpr:
		return compileBinOp(e)
	}
	return nil, &logql.UnsupportedError{What: fmt.Sprintf("the expression %s", e)}
}

func compileRangeAgg(e *logql.RangeAggregationExpr) (Metric, error) {
	if !evaluableRangeOps[e.Op] {
		return nil, &logql.UnsupportedError{What: e.Op}
	}
	lq, err := CompileLog(e.Left.Left)
	if err != nil {
		return nil, err
	}
	return &RangeAgg{Op: e.Op, Log: lq, Range: int64(e.Left.Interval), Offset: int64(e.Left.Offset)}, nil
}

func compileVectorAgg(e *logql.VectorAggregationExpr) (Metric, error) {
	if !evaluableVectorOps[e.Op] {
		return nil, &logql.UnsupportedError{What: e.Op}
	}
	inner, err := CompileMetric(e.Left)
	if err != nil {
		return nil, err
	}
	if s := sumOfRange(e, inner); s != nil {
		return s, nil
	}
	if ra, ok := inner.(*RangeAgg); ok && e.Op == "sum" {
		ra.Hints = parserHints(e.Grouping, ra.Log)
	}
	v := &VectorAgg{Op: e.Op, Inner: inner}
	if e.Grouping != nil {
		v.Grouping = *e.Grouping
	}
	if e.Param != nil {
		v.Param = *e.Param
	}
	return v, nil
}

func compileBinOp(e *logql.BinOpExpr) (Metric, error) {
	lhs, err := CompileMetric(e.LHS)
	if err != nil {
		return nil, err
	}
	rhs, err := CompileMetric(e.RHS)
	if err != nil {
		return nil, err
	}
	return &BinOp{Op: e.Op, LHS: lhs, RHS: rhs, Bool: e.ReturnBool, Matching: e.Matching}, nil
}

// sumOfRange recognises sum [by (...)] over a range aggregation whose log
// query VictoriaLogs evaluates exactly, where no grouping label is dropped.
func sumOfRange(e *logql.VectorAggregationExpr, inner Metric) *SumOfRange {
	ra, ok := inner.(*RangeAgg)
	if !ok || e.Op != "sum" || (e.Grouping != nil && e.Grouping.Without) || !ra.Log.PushdownExact {
		return nil
	}
	var by []string
	if e.Grouping != nil {
		by = e.Grouping.Groups
	}
	for _, b := range by {
		for _, d := range ra.Log.Drop {
			if b == d {
				return nil
			}
		}
	}
	return &SumOfRange{Range: ra, By: by}
}

// parserHints mirrors log.NewParserHint for a sum over a range aggregation.
func parserHints(g *logql.Grouping, lq *LogQuery) *ParserHints {
	var groups []string
	without := false
	if g != nil {
		groups, without = g.Groups, g.Without
	}
	noLabels := !without && len(groups) == 0
	var hints []string
	for _, n := range append(requiredLabelNames(lq), groups...) {
		hints = appendHint(hints, n)
		if base, ok := strings.CutSuffix(n, "_extracted"); ok {
			hints = appendHint(hints, base)
		}
	}
	preserve := slices.Contains(hints, "__error__")
	switch {
	case noLabels && len(hints) == 0:
		return &ParserHints{NoLabels: true}
	case noLabels:
		return &ParserHints{Required: hints, PreserveError: preserve}
	case without:
		return nil
	}
	return &ParserHints{Required: hints, PreserveError: preserve}
}

func appendHint(hints []string, n string) []string {
	if n == "" || slices.Contains(hints, n) {
		return hints
	}
	return append(hints, n)
}

// requiredLabelNames are the labels single-label filters name; Loki's
// hints skip binary filters.
func requiredLabelNames(lq *LogQuery) []string {
	var out []string
	for _, st := range lq.Stages {
		if f, ok := st.(LabelFilterStage); ok {
			switch s := f.F.(type) {
			case *logql.StringLabelFilter:
				out = append(out, s.Name)
			case *logql.CompareLabelFilter:
				out = append(out, s.Name)
			}
		}
	}
	return out
}
