package metric

import (
	"context"
	"errors"
	"fmt"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/plan"
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
			out.scalars[i] = m.Op.Apply(lhs.scalars[i], rhs.scalars[i])
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
		if m.Op.IsComparison() && !m.Bool {
			if m.Op.Compare(l, r) {
				out = append(out, s)
			}
			continue
		}
		out = append(out, sample{labels: s.labels, v: m.Op.Apply(l, r)})
	}
	return out
}

// matchKey is the label signature two samples are matched on.
// Loki hashes parsed operations' labels through Prometheus' label builder,
// which drops empty values.
func matchKey(m *plan.BinOp, ls lokidata.Labels) string {
	switch {
	case m.NoOptions:
		return ls.String()
	case m.Matching == nil:
	case m.Matching.On:
		ls = ls.Only(m.Matching.Labels...)
	default:
		ls = ls.Without(m.Matching.Labels...)
	}
	return withoutEmpty(ls).String()
}

// withoutEmpty drops empty-valued labels, as Prometheus' builder does.
func withoutEmpty(ls lokidata.Labels) lokidata.Labels {
	for _, l := range ls {
		if l.Value == "" {
			out := make(lokidata.Labels, 0, len(ls))
			for _, l := range ls {
				if l.Value != "" {
					out = append(out, l)
				}
			}
			return out
		}
	}
	return ls
}

var errManyToOne = errors.New("multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)")

// vectorOp matches samples as Loki's vectorBinop does: one to one, or
// many to one with group_left / group_right.
func vectorOp(m *plan.BinOp, lhs, rhs []sample) ([]sample, error) {
	if set, ok := setOps[m.Op]; ok {
		return set(m, lhs, rhs), nil
	}
	card := logql.OneToOne
	if m.Matching != nil {
		card = m.Matching.Card
	}
	many, one := lhs, rhs
	if card == logql.OneToMany {
		many, one = rhs, lhs
	}
	right := make(map[string]sample, len(one))
	for _, s := range one {
		k := matchKey(m, s.labels)
		if _, dup := right[k]; dup {
			side := "right"
			if card == logql.OneToMany {
				side = "left"
			}
			return nil, fmt.Errorf("found duplicate series on the %s hand-side;many-to-many matching not allowed: matching labels must be unique on one side", side)
		}
		right[k] = s
	}
	matched := map[string]map[string]bool{}
	var out []sample
	for _, l := range many {
		k := matchKey(m, l.labels)
		r, ok := right[k]
		if !ok {
			continue
		}
		labels := resultLabels(m, l.labels, r.labels)
		if !m.NoOptions { // Loki checks no cardinality without options
			if err := checkUnique(matched, k, labels, card); err != nil {
				return nil, err
			}
		}
		if card == logql.OneToMany {
			l, r = r, l
		}
		if m.Op.IsComparison() && !m.Bool {
			if m.Op.Compare(l.v, r.v) {
				out = append(out, sample{labels: labels, v: l.v})
			}
			continue
		}
		out = append(out, sample{labels: labels, v: m.Op.Apply(l.v, r.v)})
	}
	return out, nil
}

// checkUnique rejects a second match of one signature (one to one) or a
// second result with the same labels (group_x).
func checkUnique(matched map[string]map[string]bool, key string, labels lokidata.Labels, card logql.Cardinality) error {
	results, seen := matched[key]
	if card == logql.OneToOne {
		if seen {
			return errManyToOne
		}
		matched[key] = nil
		return nil
	}
	if !seen {
		results = map[string]bool{}
		matched[key] = results
	}
	ls := labels.String()
	if results[ls] {
		return errors.New("multiple matches for labels: grouping labels must ensure unique matches")
	}
	results[ls] = true
	return nil
}

// resultLabels are the "many" side's labels: reduced to the matching for
// one-to-one, with group_x's included labels taken from the "one" side.
func resultLabels(m *plan.BinOp, many, one lokidata.Labels) lokidata.Labels {
	if m.Matching == nil {
		return withoutEmpty(many)
	}
	out := many
	if m.Matching.Card == logql.OneToOne {
		if m.Matching.On {
			out = many.Only(m.Matching.Labels...)
		} else {
			out = many.Without(m.Matching.Labels...)
		}
	}
	if len(m.Matching.Include) == 0 {
		return withoutEmpty(out)
	}
	out = out.Without(m.Matching.Include...)
	for _, n := range m.Matching.Include {
		if v, _ := one.Get(n); v != "" {
			out = append(out, lokidata.Label{Name: n, Value: v})
		}
	}
	out.Sort()
	return withoutEmpty(out)
}

// andSet keeps the left samples matching a right one.
func andSet(m *plan.BinOp, lhs, rhs []sample) []sample {
	right := matchKeys(m, rhs)
	var out []sample
	for _, s := range lhs {
		if right[matchKey(m, s.labels)] {
			out = append(out, s)
		}
	}
	return out
}

// unlessSet keeps the left samples matching no right one.
func unlessSet(m *plan.BinOp, lhs, rhs []sample) []sample {
	right := matchKeys(m, rhs)
	var out []sample
	for _, s := range lhs {
		if !right[matchKey(m, s.labels)] {
			out = append(out, s)
		}
	}
	return out
}

// orSet keeps the left samples, then the right ones matching none of them.
func orSet(m *plan.BinOp, lhs, rhs []sample) []sample {
	left := matchKeys(m, lhs)
	out := append([]sample(nil), lhs...)
	for _, s := range rhs {
		if !left[matchKey(m, s.labels)] {
			out = append(out, s)
		}
	}
	return out
}

func matchKeys(m *plan.BinOp, samples []sample) map[string]bool {
	keys := make(map[string]bool, len(samples))
	for _, s := range samples {
		keys[matchKey(m, s.labels)] = true
	}
	return keys
}
