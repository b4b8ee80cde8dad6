package exec

import (
	"context"
	"errors"

	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/plan"
)

func (ev *evaluator) binOp(ctx context.Context, m *plan.BinOp) (value, error) {
	lhs, err := ev.eval(ctx, m.LHS)
	if err != nil {
		return value{}, err
	}
	rhs, err := ev.eval(ctx, m.RHS)
	if err != nil {
		return value{}, err
	}
	if lhs.scalar && rhs.scalar {
		out := value{scalar: true, scalars: make([]float64, len(ev.steps))}
		for i := range ev.steps {
			out.scalars[i] = logql.ApplyBinOp(m.Op, lhs.scalars[i], rhs.scalars[i])
		}
		return out, nil
	}
	out := value{vectors: make([][]sample, len(ev.steps))}
	for i := range ev.steps {
		var vec []sample
		switch {
		case rhs.scalar:
			vec = scalarOp(m, lhs.vectors[i], rhs.scalars[i], false)
		case lhs.scalar:
			vec = scalarOp(m, rhs.vectors[i], lhs.scalars[i], true)
		default:
			if vec, err = vectorOp(m, lhs.vectors[i], rhs.vectors[i]); err != nil {
				return value{}, err
			}
		}
		out.vectors[i] = vec
	}
	return out, nil
}

// scalarOp applies vector op scalar (or scalar op vector when inverted).
// A comparison without bool keeps the samples for which it holds, with
// the vector's value.
func scalarOp(m *plan.BinOp, vec []sample, scalar float64, inverted bool) []sample {
	out := make([]sample, 0, len(vec))
	for _, s := range vec {
		l, r := s.v, scalar
		if inverted {
			l, r = scalar, s.v
		}
		if isComparison(m.Op) && !m.Bool {
			if logql.Compare(m.Op, l, r) {
				out = append(out, s)
			}
			continue
		}
		out = append(out, sample{labels: s.labels, v: logql.ApplyBinOp(m.Op, l, r)})
	}
	return out
}

func isComparison(op string) bool {
	switch op {
	case "==", "!=", ">", ">=", "<", "<=":
		return true
	}
	return false
}

// matchKey is the label signature two samples are matched on.
func matchKey(m *plan.BinOp, ls model.Labels) string {
	if m.Matching == nil {
		return ls.String()
	}
	if m.Matching.On {
		return ls.Only(m.Matching.Labels...).String()
	}
	return ls.Without(m.Matching.Labels...).String()
}

var errManyToOne = errors.New("multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)")

// vectorOp matches samples one to one, as Loki's vectorBinop does.
func vectorOp(m *plan.BinOp, lhs, rhs []sample) ([]sample, error) {
	switch m.Op {
	case "and", "or", "unless":
		return setOp(m, lhs, rhs), nil
	}
	right := make(map[string]sample, len(rhs))
	for _, s := range rhs {
		k := matchKey(m, s.labels)
		if _, dup := right[k]; dup {
			return nil, errors.New("found duplicate series on the right hand-side;many-to-many matching not allowed: matching labels must be unique on one side")
		}
		right[k] = s
	}
	matched := map[string]bool{}
	var out []sample
	for _, l := range lhs {
		k := matchKey(m, l.labels)
		r, ok := right[k]
		if !ok {
			continue
		}
		if matched[k] {
			return nil, errManyToOne
		}
		matched[k] = true
		labels := resultLabels(m, l.labels)
		if isComparison(m.Op) && !m.Bool {
			if logql.Compare(m.Op, l.v, r.v) {
				out = append(out, sample{labels: labels, v: l.v})
			}
			continue
		}
		out = append(out, sample{labels: labels, v: logql.ApplyBinOp(m.Op, l.v, r.v)})
	}
	return out, nil
}

func resultLabels(m *plan.BinOp, ls model.Labels) model.Labels {
	if m.Matching == nil {
		return ls
	}
	if m.Matching.On {
		return ls.Only(m.Matching.Labels...)
	}
	return ls.Without(m.Matching.Labels...)
}

func setOp(m *plan.BinOp, lhs, rhs []sample) []sample {
	rightKeys := map[string]bool{}
	for _, s := range rhs {
		rightKeys[matchKey(m, s.labels)] = true
	}
	var out []sample
	switch m.Op {
	case "and":
		for _, s := range lhs {
			if rightKeys[matchKey(m, s.labels)] {
				out = append(out, s)
			}
		}
	case "unless":
		for _, s := range lhs {
			if !rightKeys[matchKey(m, s.labels)] {
				out = append(out, s)
			}
		}
	case "or":
		leftKeys := map[string]bool{}
		for _, s := range lhs {
			leftKeys[matchKey(m, s.labels)] = true
			out = append(out, s)
		}
		for _, s := range rhs {
			if !leftKeys[matchKey(m, s.labels)] {
				out = append(out, s)
			}
		}
	}
	return out
}
