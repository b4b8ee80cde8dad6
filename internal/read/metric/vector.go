package metric

import (
	"context"
	"math"
	"sort"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/plan"
)

// group accumulates one output series of a vector aggregation, with Loki's
// arithmetic (running mean, Welford variance).
type group struct {
	labels  lokidata.Labels
	value   float64
	mean    float64
	count   int
	members []sample
}

func (ev *evaluator) vectorAgg(ctx context.Context, m *plan.VectorAgg) (value, error) {
	in, err := ev.eval(ctx, m.Inner)
	if err != nil {
		return value{}, err
	}
	return ev.aggregateSteps(m, in), nil
}

// aggregateSteps aggregates the inner value in at every step.
func (ev *evaluator) aggregateSteps(m *plan.VectorAgg, in value) value {
	out := value{vectors: make([][]sample, len(ev.steps))}
	for i := range ev.steps {
		if in.scalar {
			continue
		}
		var twins bool
		out.vectors[i], twins = aggregate(m, in.vectors[i])
		ev.twins = ev.twins || twins
	}
	return out
}

// aggregate computes one step's groups; twins reports two groups that
// print alike (see groupLabels).
func aggregate(m *plan.VectorAgg, vec []sample) (out []sample, twins bool) {
	if m.Op.TakesParam() && m.Param < 1 {
		return nil, false // topk(0, ...)
	}
	eval := vectorEvals[m.Op]
	groups := map[string]*group{}
	var order []string
	trimmed := false
	for _, s := range vec {
		k, labels, dropped := groupLabels(m.Grouping, s.labels)
		trimmed = trimmed || dropped
		g, ok := groups[k]
		if !ok {
			groups[k] = newGroup(eval, labels, s)
			order = append(order, k)
			continue
		}
		g.members = append(g.members, s)
		eval.fold(g, s.v)
	}
	for _, k := range order {
		out = append(out, eval.result(groups[k], m)...)
	}
	return out, trimmed && printAlike(groups)
}

// printAlike reports two groups with the same printed labels.
func printAlike(groups map[string]*group) bool {
	seen := make(map[string]bool, len(groups))
	for _, g := range groups {
		k := g.labels.String()
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

// groupLabels are a sample's group under the grouping (its key) and the
// group's labels. Loki hashes the labels a grouping keeps, empty-valued
// ones included, but builds a without-group's labels with the Prometheus
// label builder, which drops empty values (dropped reports that it did):
// two groups can print alike (as when Loki's frontend merges the shards
// of a range aggregation after a drop or keep with sum without ()). A
// by-group keeps them.
func groupLabels(g logql.Grouping, ls lokidata.Labels) (key string, labels lokidata.Labels, dropped bool) {
	if !g.Without {
		out := ls.Only(g.Groups...)
		return out.String(), out, false
	}
	out := ls.Without(g.Groups...)
	key = out.String()
	kept := out[:0] // out is ls's copy: filtered in place once keyed
	for _, l := range out {
		if l.Value != "" {
			kept = append(kept, l)
		}
	}
	return key, kept, len(kept) < len(out)
}

// newGroup starts a group with its first sample.
func newGroup(eval vectorEval, labels lokidata.Labels, s sample) *group {
	g := &group{labels: labels, value: s.v, mean: s.v, count: 1, members: []sample{s}}
	if eval.zeroFirst {
		g.value = 0
	}
	return g
}

func foldSum(g *group, v float64) { g.value += v }

// foldMean is Loki's running mean.
func foldMean(g *group, v float64) {
	g.count++
	g.mean += (v - g.mean) / float64(g.count)
}

func foldMax(g *group, v float64) {
	if g.value < v || math.IsNaN(g.value) {
		g.value = v
	}
}

func foldMin(g *group, v float64) {
	if g.value > v || math.IsNaN(g.value) {
		g.value = v
	}
}

func foldCount(g *group, _ float64) { g.count++ }

// foldVariance is Welford's: value sums the squared deviations.
func foldVariance(g *group, v float64) {
	g.count++
	delta := v - g.mean
	g.mean += delta / float64(g.count)
	g.value += delta * (v - g.mean)
}

// foldNothing: the ranking aggregations read the group's members.
func foldNothing(*group, float64) {}

func groupValue(g *group, _ *plan.VectorAgg) []sample {
	return []sample{{labels: g.labels, v: g.value}}
}

func groupMean(g *group, _ *plan.VectorAgg) []sample {
	return []sample{{labels: g.labels, v: g.mean}}
}

func groupCount(g *group, _ *plan.VectorAgg) []sample {
	return []sample{{labels: g.labels, v: float64(g.count)}}
}

func groupStddev(g *group, _ *plan.VectorAgg) []sample {
	return []sample{{labels: g.labels, v: math.Sqrt(g.value / float64(g.count))}}
}

func groupStdvar(g *group, _ *plan.VectorAgg) []sample {
	return []sample{{labels: g.labels, v: g.value / float64(g.count)}}
}

func rankedDesc(g *group, m *plan.VectorAgg) []sample { return ranked(g.members, m, true) }

func rankedAsc(g *group, m *plan.VectorAgg) []sample { return ranked(g.members, m, false) }

// ranked orders a group's samples by value (NaN last) and keeps the first
// k for topk/bottomk (the aggregations taking a parameter).
func ranked(members []sample, m *plan.VectorAgg, desc bool) []sample {
	s := append([]sample(nil), members...)
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i].v, s[j].v
		if math.IsNaN(a) != math.IsNaN(b) {
			return !math.IsNaN(a)
		}
		if desc {
			return a > b
		}
		return a < b
	})
	if m.Op.TakesParam() && int(m.Param) < len(s) {
		s = s[:int(m.Param)]
	}
	return s
}
