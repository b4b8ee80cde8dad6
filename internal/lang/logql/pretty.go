package logql

import (
	"strconv"
	"strings"
)

// maxLineLen is the length above which Pretty splits an expression.
const maxLineLen = 100

// Pretty formats e as Loki's format_query does: an expression whose text
// fits in 100 characters stays on one line; a longer one is split, its
// parts indented two spaces per level. Loki's quirks are kept: a split
// line filter shows only its first `or` alternative, decolorize is not
// indented, a split binary operation drops its parentheses and an empty
// on ().
func Pretty(e Expr) string { return pretty(e, 0) }

func indent(level int) string { return strings.Repeat("  ", level) }

func fits(e interface{ String() string }) bool { return len(e.String()) <= maxLineLen }

func pretty(e Expr, level int) string {
	switch e := e.(type) {
	case *PipelineExpr:
		return prettyPipeline(e, level)
	case *RangeAggregationExpr:
		return prettyRangeAgg(e, level)
	case *VectorAggregationExpr:
		return prettyVectorAgg(e, level)
	case *BinOpExpr:
		return prettyBinOp(e, level)
	case *LabelReplaceExpr:
		return prettyLabelReplace(e, level)
	case *VariantsExpr:
		return prettyVariants(e, level)
	}
	return indent(level) + e.String()
}

func prettyPipeline(e *PipelineExpr, level int) string {
	if fits(e) {
		return indent(level) + e.String()
	}
	lines := []string{pretty(e.Left, level)}
	var chain []string // consecutive line filters, one element per filter
	flush := func() {
		if len(chain) > 0 {
			lines = append(lines, prettyLineFilters(chain, level+1))
			chain = nil
		}
	}
	for _, st := range e.Pipeline {
		switch st := st.(type) {
		case *LineFilterExpr:
			chain = append(chain, lineFilterElements(st)...)
			continue
		case *DecolorizeExpr:
			flush()
			lines = append(lines, st.String())
			continue
		}
		flush()
		lines = append(lines, indent(level+1)+st.String())
	}
	flush()
	return strings.Join(lines, "\n")
}

// lineFilterElements splits a filter as Loki chains it: a negative filter
// with alternatives is one filter per value; a positive one keeps its
// alternatives, of which a split line shows the first.
func lineFilterElements(f *LineFilterExpr) []string {
	one := func(i int) string {
		v := strconv.Quote(f.Values[i])
		if f.IPs != nil && f.IPs[i] != nil {
			v = f.IPs[i].String()
		}
		return f.Type.String() + " " + v
	}
	if f.Type.Negative() {
		out := make([]string, len(f.Values))
		for i := range f.Values {
			out[i] = one(i)
		}
		return out
	}
	return []string{f.String() + "\x00" + one(0)}
}

// prettyLineFilters prints a chain: whole when it fits, otherwise its
// head printed the same way and the last filter on a line of its own.
func prettyLineFilters(chain []string, level int) string {
	full := make([]string, len(chain))
	for i, c := range chain {
		full[i], _, _ = strings.Cut(c, "\x00")
	}
	if s := strings.Join(full, " "); len(s) <= maxLineLen {
		return indent(level) + s
	}
	last := chain[len(chain)-1]
	if _, first, ok := strings.Cut(last, "\x00"); ok {
		last = first
	}
	if len(chain) == 1 {
		return indent(level) + last
	}
	return prettyLineFilters(chain[:len(chain)-1], level) + "\n" + indent(level) + last
}

func prettyLogRange(r *LogRange, level int) string {
	s := pretty(r.Left, level)
	if u := r.Unwrap; u != nil {
		target := u.Identifier
		if u.Operation != "" {
			target = u.Operation + "(" + u.Identifier + ")"
		}
		s += "\n" + indent(level+1) + "| unwrap " + target
		for _, f := range u.PostFilters {
			s += "\n" + indent(level+1) + "| " + f.String()
		}
	}
	s += " [" + formatDuration(r.Interval) + "]"
	if r.Offset != 0 {
		s += " offset " + formatDuration(r.Offset)
	}
	return s
}

func prettyGrouping(g *Grouping) string {
	if g == nil {
		return ""
	}
	s := ""
	if g.Without {
		s = " without"
	} else if len(g.Groups) > 0 {
		s = " by"
	}
	if len(g.Groups) > 0 {
		s += " (" + strings.Join(g.Groups, ", ") + ")"
	}
	return s
}

func prettyRangeAgg(e *RangeAggregationExpr, level int) string {
	if fits(e) {
		return indent(level) + e.String()
	}
	s := indent(level) + e.Op.String() + "(\n"
	if e.Param != nil {
		s += indent(level+1) + strconv.FormatFloat(*e.Param, 'g', -1, 64) + ",\n"
	}
	return s + prettyLogRange(e.Left, level+1) + "\n" + indent(level) + ")" + prettyGrouping(e.Grouping)
}

func prettyVectorAgg(e *VectorAggregationExpr, level int) string {
	if fits(e) {
		return indent(level) + e.String()
	}
	params := []string{pretty(e.Left, level+1)}
	if e.Param != nil {
		params = append([]string{indent(level+1) + strconv.Itoa(int(*e.Param))}, params...)
	}
	return indent(level) + e.Op.String() + prettyGrouping(e.Grouping) + "(\n" + strings.Join(params, ",\n") + "\n" + indent(level) + ")"
}

func prettyBinOp(e *BinOpExpr, level int) string {
	if fits(e) {
		return indent(level) + e.String()
	}
	op := e.Op.String()
	if e.ReturnBool {
		op += " bool"
	}
	if m := e.Matching; m != nil && len(m.Labels) > 0 {
		group := ""
		switch m.Card {
		case ManyToOne:
			group = "group_left"
		case OneToMany:
			group = "group_right"
		}
		if len(m.Include) > 0 {
			group += " (" + strings.Join(m.Include, ", ") + ")"
		}
		kw := "ignoring"
		if m.On {
			kw = "on"
		}
		op += " " + kw + " (" + strings.Join(m.Labels, ", ") + ") " + group
	}
	return pretty(e.LHS, level+1) + "\n" + indent(level) + op + "\n" + pretty(e.RHS, level+1)
}

func prettyLabelReplace(e *LabelReplaceExpr, level int) string {
	if fits(e) {
		return indent(level) + e.String()
	}
	in := indent(level + 1)
	params := []string{pretty(e.Left, level+1), in + strconv.Quote(e.Dst), in + strconv.Quote(e.Replacement),
		in + strconv.Quote(e.Src), in + strconv.Quote(e.Regex)}
	return indent(level) + "label_replace(\n" + strings.Join(params, ",\n") + "\n" + indent(level) + ")"
}

func prettyVariants(e *VariantsExpr, level int) string {
	parts := make([]string, len(e.Variants))
	for i, v := range e.Variants {
		parts[i] = pretty(v, level+1)
	}
	return indent(level) + "variants(\n" + strings.Join(parts, ",\n") + "\n" + indent(level) + ") of (\n" +
		prettyLogRange(e.LogRange, level+1) + indent(level) + "\n)"
}
