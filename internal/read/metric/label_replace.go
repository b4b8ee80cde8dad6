package metric

import (
	"context"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/plan"
)

// labelReplace sets dst from the expansion of the replacement when the
// anchored regex matches src; an empty expansion removes dst. Series the
// regex does not match pass unchanged.
func (ev *evaluator) labelReplace(ctx context.Context, m *plan.LabelReplace) (value, error) {
	v, err := ev.eval(ctx, m.Inner)
	if err != nil || v.scalar {
		return v, err
	}
	cache := map[string]lokidata.Labels{}
	for _, vec := range v.vectors {
		for i := range vec {
			key := vec[i].labels.String()
			ls, ok := cache[key]
			if !ok {
				ls = replaceLabel(m, vec[i].labels)
				cache[key] = ls
			}
			vec[i].labels = ls
		}
	}
	return v, nil
}

func replaceLabel(m *plan.LabelReplace, ls lokidata.Labels) lokidata.Labels {
	src, _ := ls.Get(m.Src)
	idx := m.Re.FindStringSubmatchIndex(src)
	if idx == nil {
		return ls
	}
	res := m.Re.ExpandString(nil, m.Replacement, src, idx)
	// Rebuilt with Prometheus' label builder, which drops empty values.
	out := lokidata.Labels{}
	for _, l := range ls {
		if l.Name != m.Dst && l.Value != "" {
			out = append(out, l)
		}
	}
	if len(res) > 0 {
		out = append(out, lokidata.Label{Name: m.Dst, Value: string(res)})
		out.Sort()
	}
	return out
}
