package frontend

import (
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/plan"
)

// Loki's query frontend maps every metric query for sharding before it
// runs, even when the data is too small for more than one shard. Two of
// its rewrites change the floating-point arithmetic, so vloki applies them
// too: avg(x) becomes sum(x) / count(x), and avg_over_time(...) by (...)
// becomes sum by (...) (sum_over_time(...)) / sum by (...)
// (count_over_time(...)). The other rewrites only merge shards and leave
// values as they are.

// Shard maps a metric query as Loki's shard mapper does: the rewritten
// query, the expressions handed to queriers (their answers are what
// max_query_series limits) and the divisions the frontend built.
func Shard(e logql.SampleExpr) plan.Mapping {
	f := &mapper{downstream: map[logql.SampleExpr]bool{}, generated: map[logql.SampleExpr]bool{}}
	m := f.rewriteQuery(e)
	return plan.Mapping{Expr: m, Downstream: f.downstream, Generated: f.generated, Undivided: f.undivided}
}

// mapper records, while mirroring the shard mapper's walk, the
// expressions Loki hands to its queriers (downstream).
type mapper struct {
	downstream map[logql.SampleExpr]bool
	// generated are the divisions the frontend builds itself: they carry
	// no binary-operation options, which changes how Loki matches them.
	generated map[logql.SampleExpr]bool
	// undivided: the mapper changed nothing, and Loki's frontend passes
	// the querier's answer on as it is.
	undivided bool
}

// divide builds the frontend's own lhs / rhs.
func (f *mapper) divide(lhs, rhs logql.SampleExpr) *logql.BinOpExpr {
	e := &logql.BinOpExpr{Op: logql.OpDiv, LHS: lhs, RHS: rhs}
	f.generated[e] = true
	return e
}

// rewriteQuery maps a whole query; one nothing in which was handed down
// runs on a querier whole.
func (f *mapper) rewriteQuery(e logql.SampleExpr) logql.SampleExpr {
	m := f.rewrite(e, true)
	if !f.anyDownstream(m) {
		f.downstream[m] = true
		f.undivided = true
	}
	return m
}

// frontendRewrite mirrors the shard mapper's walk over e.
func (f *mapper) rewrite(e logql.SampleExpr, top bool) logql.SampleExpr {
	switch e := e.(type) {
	case *logql.BinOpExpr:
		cp := *e
		cp.LHS, cp.RHS = f.leg(e.LHS, top), f.leg(e.RHS, top)
		f.generated[&cp] = f.generated[e]
		return &cp
	case *logql.LabelReplaceExpr:
		cp := *e
		cp.Left = f.rewrite(e.Left, top)
		return &cp
	case *logql.VectorAggregationExpr:
		return f.rewriteVectorAgg(e, top)
	case *logql.RangeAggregationExpr:
		return f.rewriteRangeAgg(e, top)
	}
	return e
}

// leg maps an operand of a binary operation; one the mapper left alone
// is handed down whole, unless it is a number.
func (f *mapper) leg(e logql.SampleExpr, top bool) logql.SampleExpr {
	m := f.rewrite(e, top)
	switch m.(type) {
	case *logql.LiteralExpr, *logql.VectorExpr:
		return m
	}
	if !f.anyDownstream(m) {
		f.downstream[m] = true
	}
	return m
}

func (f *mapper) rewriteVectorAgg(e *logql.VectorAggregationExpr, top bool) logql.SampleExpr {
	if !shardable(e, top) {
		return f.descend(e)
	}
	switch e.Op {
	case logql.OpAvg:
		return f.rewrite(f.divide(
			&logql.VectorAggregationExpr{Op: logql.OpSum, Left: e.Left, Grouping: e.Grouping},
			&logql.VectorAggregationExpr{Op: logql.OpCount, Left: e.Left, Grouping: e.Grouping},
		), top)
	case logql.OpMin, logql.OpMax, logql.OpCount:
		if reducesLabels(e.Left) {
			return f.descend(e)
		}
	}
	f.downstream[e] = true
	return f.mergeShards(e)
}

// mergeShards adds the frontend's aggregation over the shards' answers.
// It changes nothing but under without (...): there a querier can answer
// two groups that print alike (empty-valued labels dropped), which the
// frontend's aggregation then merges.
func (f *mapper) mergeShards(e *logql.VectorAggregationExpr) logql.SampleExpr {
	op := vectorShards[e.Op].merge
	if op == 0 || e.Grouping == nil || !e.Grouping.Without {
		return e
	}
	return &logql.VectorAggregationExpr{Op: op, Grouping: e.Grouping, Left: e}
}

// descend leaves the aggregation to the frontend and maps its operand.
func (f *mapper) descend(e *logql.VectorAggregationExpr) logql.SampleExpr {
	cp := *e
	cp.Left = f.rewrite(e.Left, false)
	return &cp
}

// anyDownstream reports a handed-down expression in e.
func (f *mapper) anyDownstream(e logql.SampleExpr) bool {
	if f.downstream[e] {
		return true
	}
	switch e := e.(type) {
	case *logql.BinOpExpr:
		return f.anyDownstream(e.LHS) || f.anyDownstream(e.RHS)
	case *logql.LabelReplaceExpr:
		return f.anyDownstream(e.Left)
	case *logql.VectorAggregationExpr:
		return f.anyDownstream(e.Left)
	}
	return false
}

func (f *mapper) rewriteRangeAgg(e *logql.RangeAggregationExpr, top bool) logql.SampleExpr {
	switch {
	case !shardable(e, top), rangeShards[e.Op].kept:
		// Quantiles shard only with probabilistic sketches, first and last
		// behind feature flags; all off by default, so the mapper leaves
		// them as they are.
		return e
	}
	g := e.Grouping
	if !reducesLabels(e) && (g == nil || (g.Without && len(g.Groups) == 0)) {
		f.downstream[e] = true
		return e
	}
	if g == nil {
		g = &logql.Grouping{Without: true}
	}
	// The mapper merges a range aggregation's shards when the same series
	// may come from several with a vector aggregation, which regroups the
	// labels (without () drops empty-valued ones).
	if merger := rangeShards[e.Op].merge; merger != 0 {
		f.downstream[e] = true
		return &logql.VectorAggregationExpr{Op: merger, Grouping: g, Left: e}
	}
	if e.Op != logql.OpAvgOverTime {
		f.downstream[e] = true
		return e
	}
	rhsGroup := &logql.Grouping{Groups: append([]string(nil), g.Groups...), Without: g.Without}
	if g.Without && e.Left.Unwrap != nil {
		rhsGroup.Groups = append(rhsGroup.Groups, e.Left.Unwrap.Identifier)
	}
	countRange := *e.Left
	countRange.Unwrap = nil
	lhs := &logql.VectorAggregationExpr{Op: logql.OpSum, Grouping: g,
		Left: &logql.RangeAggregationExpr{Op: logql.OpSumOverTime, Left: e.Left}}
	rhs := &logql.VectorAggregationExpr{Op: logql.OpSum, Grouping: rhsGroup,
		Left: &logql.RangeAggregationExpr{Op: logql.OpCountOverTime, Left: &countRange}}
	f.downstream[lhs], f.downstream[rhs] = true, true
	return f.divide(f.mergeShards(lhs), f.mergeShards(rhs))
}

// shardable is Loki's Shardable: every stage shards; what decides is the
// operations and how they reduce labels.
func shardable(e logql.SampleExpr, top bool) bool {
	switch e := e.(type) {
	case *logql.LiteralExpr:
		return true
	case *logql.BinOpExpr:
		if m := e.Matching; m != nil && (m.On || len(m.Labels) > 0) {
			return false
		}
		return shardable(e.LHS, top) && shardable(e.RHS, top)
	case *logql.RangeAggregationExpr:
		return rangeShards[e.Op].when.holds(top)
	case *logql.VectorAggregationExpr:
		return shardableVectorAgg(e, top)
	}
	return false // vector(), label_replace
}

func shardableVectorAgg(e *logql.VectorAggregationExpr, top bool) bool {
	if !vectorShards[e.Op].shardable || !shardable(e.Left, top) {
		return false
	}
	switch e.Op {
	case logql.OpCount, logql.OpAvg:
		return !reducesLabels(e.Left)
	case logql.OpMax, logql.OpMin:
		_, isRange := e.Left.(*logql.RangeAggregationExpr)
		return isRange && shardable(e.Left, false)
	case logql.OpSum:
		if child, ok := e.Left.(*logql.VectorAggregationExpr); ok && (child.Op == logql.OpMin || child.Op == logql.OpMax) {
			return false
		}
	}
	return true
}

// reducesLabels reports a grouping with labels, a keep or drop, or a
// label_format rename anywhere in e.
func reducesLabels(e logql.SampleExpr) bool {
	switch e := e.(type) {
	case *logql.BinOpExpr:
		return reducesLabels(e.LHS) || reducesLabels(e.RHS)
	case *logql.LabelReplaceExpr:
		return reducesLabels(e.Left)
	case *logql.VectorAggregationExpr:
		return groupsLabels(e.Grouping) || reducesLabels(e.Left)
	case *logql.RangeAggregationExpr:
		return groupsLabels(e.Grouping) || stagesReduceLabels(e.Left.Left.Stages())
	}
	return false
}

func groupsLabels(g *logql.Grouping) bool { return g != nil && len(g.Groups) > 0 }

func stagesReduceLabels(stages []logql.Stage) bool {
	for _, st := range stages {
		switch st := st.(type) {
		case *logql.KeepLabelsExpr, *logql.DropLabelsExpr:
			return true
		case *logql.LabelFmtExpr:
			for _, f := range st.Formats {
				if f.Rename {
					return true
				}
			}
		}
	}
	return false
}
