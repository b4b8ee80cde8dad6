package logql

import "strings"

// Loki builds a query's pipeline stages only after parsing and validating
// it, so a stage whose constructor fails (a bad regex, ip pattern,
// template, json or logfmt expression) is reported after every syntax and
// validation error, and only if Loki builds it: its metric queries drop
// useless line_format stages first, and it builds each pipeline with the
// line filters moved forward. The parser records the failures;
// firstStageError picks the one Loki reports.

// stageFailure is a stage whose construction failed and Loki's reason.
type stageFailure struct {
	stage Stage
	msg   string
}

// failStage records a stage whose construction failed; format_query
// (lenient) prints such stages all the same.
func (p *parser) failStage(st Stage, msg string) {
	if !p.lenient {
		p.failed = append(p.failed, stageFailure{st, msg})
	}
}

// firstStageError is the error of the first failing stage in the order
// Loki builds e's pipelines, nil if none fails.
func firstStageError(e Expr, failed []stageFailure) error {
	why := func(st Stage) string {
		if lf, ok := st.(*LabelFilterExpr); ok {
			if ip, ok := lf.Filter.(*IPLabelFilter); ok {
				// Only an ip filter standing alone checks its pattern.
				return ip.patternErr
			}
		}
		for _, f := range failed {
			if f.stage == st {
				return f.msg
			}
		}
		return ""
	}
	for _, stages := range builtPipelines(e) {
		for _, group := range buildOrder(stages) {
			// Loki builds combined line filters from the last one back.
			for i := len(group) - 1; i >= 0; i-- {
				if msg := why(group[i]); msg != "" {
					return &ParseError{Msg: "stage '" + groupString(group) + "' : " + msg, Unbuilt: e}
				}
			}
		}
	}
	return nil
}

// builtPipelines are the pipelines Loki builds for e, left to right: a
// log query's, and each range aggregation's without the line_format
// stages its optimizer drops.
func builtPipelines(e Expr) [][]Stage {
	if sel, ok := e.(LogSelectorExpr); ok {
		return [][]Stage{sel.Stages()}
	}
	var out [][]Stage
	var visit func(Expr)
	visit = func(x Expr) {
		switch x := x.(type) {
		case *RangeAggregationExpr:
			stages := x.Left.Left.Stages()
			if !x.Op.LineBytes() {
				stages = withoutUselessLineFormat(stages)
			}
			out = append(out, stages)
		case *VectorAggregationExpr:
			visit(x.Left)
		case *LabelReplaceExpr:
			visit(x.Left)
		case *BinOpExpr:
			visit(x.LHS)
			visit(x.RHS)
		case *VariantsExpr:
			out = append(out, x.LogRange.Left.Stages())
		}
	}
	visit(e)
	return out
}

// withoutUselessLineFormat drops each line_format that no parser or
// line filter follows: a metric of the lines' count cannot see it.
func withoutUselessLineFormat(stages []Stage) []Stage {
	var out []Stage
	for i, st := range stages {
		if _, ok := st.(*LineFmtExpr); ok && !ReadsLineAfter(stages[i+1:]) {
			continue
		}
		out = append(out, st)
	}
	return out
}

// ReadsLineAfter reports a parser or a line filter among the stages: a
// line_format before them matters to a metric of the lines' count, which
// otherwise cannot see it (Loki's optimizer drops it; so does the plan).
func ReadsLineAfter(stages []Stage) bool {
	for _, st := range stages {
		switch st.(type) {
		case *LabelParserExpr, *LineFilterExpr, *JSONParamsExpr, *LogfmtExpr:
			return true
		}
	}
	return false
}

// buildOrder groups the stages as Loki builds them: between a label
// filter, a line_format or an unpack and the next, the line filters come
// first, combined into one stage, then the other stages in order.
func buildOrder(stages []Stage) [][]Stage {
	var out [][]Stage
	var filters, others []Stage
	flush := func() {
		if len(filters) > 0 {
			out = append(out, filters)
		}
		for _, st := range others {
			out = append(out, []Stage{st})
		}
		filters, others = nil, nil
	}
	for _, st := range stages {
		switch st := st.(type) {
		case *LabelFilterExpr:
			flush()
			out = append(out, []Stage{st})
		case *LineFilterExpr:
			filters = append(filters, st)
		case *LineFmtExpr:
			others = append(others, st)
			flush()
		case *LabelParserExpr:
			others = append(others, st)
			if st.Op == "unpack" {
				flush()
			}
		default:
			others = append(others, st)
		}
	}
	flush()
	return out
}

func groupString(group []Stage) string {
	parts := make([]string, len(group))
	for i, st := range group {
		parts[i] = st.String()
	}
	return strings.Join(parts, " ")
}
