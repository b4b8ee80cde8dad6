package plan

import (
	"fmt"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/storage/otheragents"
	"github.com/vloki/vloki/internal/storage/schema"
)

// CompileLog plans a log query: the selector becomes a stream filter; line
// filters, and label filters not preceded by a drop, are pushed down
// exactly; every stage also runs locally.
func CompileLog(sel logql.LogSelectorExpr, f *otheragents.Config) (*LogQuery, error) {
	filters := logsql.And{StreamFilter(sel.Matchers(), f)}
	q := &LogQuery{Selector: sel.Matchers(), PushdownExact: true, Foreign: f, Early: &EarlyFilters{}}
	// dropped: labels may differ from the stored fields; lineChanged: the
	// line differs from the stored _msg. Filters after either run locally.
	// formatted: a label_format may have set labels from templates.
	dropped, lineChanged, formatted := false, false, false
	// jsonOnly: every parser so far is a plain json, whose values are
	// whole JSON scalars of the line.
	jsonOnly := true
	for _, st := range reorderStages(sel.Stages()) {
		switch st := st.(type) {
		case *logql.LineFilterExpr:
			if st.Type.Pattern() || st.HasIP() || lineChanged {
				// Pattern filters have no exact LogsQL form: local only.
				q.PushdownExact = false
			} else if lf := pushdownLineFilter(st, f); lf != nil {
				filters, q.FiltersLines = append(filters, lf), true
				if st.Type == logql.LineMatchEqual && len(st.Values) == 1 && f == nil {
					q.Contains = append(q.Contains, st.Values[0])
				}
				// Rebuilt lines of rows stored without one are checked locally.
				q.PushdownExact = q.PushdownExact && f == nil
			}
			q.Stages = append(q.Stages, LineStage{M: st})
		case *logql.DecolorizeExpr:
			// The output line and its bytes change: no aggregation pushdown.
			q.PushdownExact, lineChanged = false, true
			q.Stages = append(q.Stages, DecolorizeStage{})
		case *logql.LineFmtExpr:
			q.PushdownExact, lineChanged = false, true
			q.Stages = append(q.Stages, LineFormatStage{T: st.Tmpl})
		case *logql.LabelFmtExpr:
			q.PushdownExact, dropped, formatted = false, true, true
			q.Stages = append(q.Stages, LabelFormatStage{Formats: st.Formats})
		case *logql.DropLabelsExpr:
			dropped = true
			for _, it := range st.Items {
				q.Drop = append(q.Drop, it.Name)
			}
			q.Stages = append(q.Stages, DropStage{Items: st.Items})
		case *logql.KeepLabelsExpr:
			dropped, q.PushdownExact = true, false
			q.Stages = append(q.Stages, KeepStage{Items: st.Items})
		case *logql.LabelParserExpr:
			q.HasParser = true
			jsonOnly = jsonOnly && st.Op == "json"
			if st.Op == "unpack" {
				q.PushdownExact, lineChanged = false, true
			}
			q.Stages = append(q.Stages, ParserStage{Op: st.Op, Expr: st})
		case *logql.JSONParamsExpr:
			q.HasParser, jsonOnly = true, false
			q.Stages = append(q.Stages, JSONParamsStage{Params: st.Params})
		case *logql.LogfmtExpr:
			q.HasParser, jsonOnly = true, false
			q.Stages = append(q.Stages, LogfmtStage{E: st})
		case *logql.LabelFilterExpr:
			if !formatted && !lineChanged && f == nil {
				q.Contains = append(q.Contains, heldValues(st.Filter)...)
			}
			lf, ok := pushdownLabelFilter(st.Filter, f)
			if ok && !dropped && !q.HasParser {
				filters = append(filters, lf)
			} else {
				q.PushdownExact = false
				if nc := necessaryCondition(st.Filter, jsonOnly); nc != nil && !formatted && !lineChanged && f == nil {
					filters, q.FiltersLines = append(filters, nc), true
				}
			}
			q.Stages = append(q.Stages, LabelFilterStage{F: st.Filter})
			q.Early.add(st.Filter)
		default:
			return nil, fmt.Errorf("plan: unexpected stage %T", st)
		}
	}
	// Parsers add labels but keep every row and line: without them the
	// pushdown would be exact.
	q.ExactButParsers = q.PushdownExact && q.HasParser
	q.PushdownExact = q.PushdownExact && !q.HasParser
	q.Pushdown = filters
	return q, nil
}

// pushdownLineFilter translates a line filter to a LogsQL filter selecting
// exactly the lines it keeps; nil when it keeps every line.
//
// |= "x" is a substring match, so it becomes the regex filter ~"<quoted x>"
// (LogsQL's bare "x" is a word match). Empty lines are stored as marker
// rows whose _msg is VictoriaLogs' placeholder, so when the filter keeps an
// empty line the marker rows are added back, and otherwise excluded, so the
// filter is exact and VictoriaLogs can aggregate on it.
//
// For data other agents wrote (fc set), rows stored without a line are
// kept too: the line vloki rebuilds for them is checked locally.
func pushdownLineFilter(f *logql.LineFilterExpr, fc *otheragents.Config) logsql.Filter {
	alts := make(logsql.Or, 0, len(f.Values))
	for i := range f.Values {
		re, dropped := f.Leg(i)
		if dropped {
			continue
		}
		if re == "" { // the leg keeps every line
			if f.Type.Negative() {
				return logsql.Not{F: logsql.Any{}}
			}
			return nil
		}
		if f.Type.Regexp() {
			alts = append(alts, regexpLeg(re))
		} else {
			alts = append(alts, logsql.Regexp{Field: "_msg", Re: re})
		}
	}
	var out logsql.Filter = alts
	if f.Type.Negative() {
		out = logsql.Not{F: alts}
	}
	marker := logsql.Exact{Field: schema.EmptyLineField, Value: "1"}
	if f.Match("") {
		out = logsql.Or{out, marker}
	} else {
		out = logsql.And{out, logsql.Not{F: marker}}
	}
	if fc != nil {
		noLine := logsql.And{logsql.Exact{Field: "_msg", Value: fc.MissingMsg}, logsql.Not{F: marker}}
		out = logsql.Or{out, noLine}
	}
	return out
}

// pushdownLabelFilter translates a label filter on stream labels and
// structured metadata to LogsQL field filters when the translation is
// exact: comparisons with non-empty values, and regexes that do not match
// the empty string (a missing field compares as "").
//
// For data other agents wrote (fc set), filters on renamed or derived
// labels run locally only.
func pushdownLabelFilter(f logql.LabelFilter, fc *otheragents.Config) (logsql.Filter, bool) {
	switch f := f.(type) {
	case *logql.StringLabelFilter:
		if fc.Derived(f.Name) {
			return nil, false
		}
		return pushdownStringFilter(f)
	case *logql.BinaryLabelFilter:
		l, lok := pushdownLabelFilter(f.Left, fc)
		r, rok := pushdownLabelFilter(f.Right, fc)
		if !lok || !rok {
			return nil, false
		}
		if f.And {
			return logsql.And{l, r}, true
		}
		return logsql.Or{l, r}, true
	}
	return nil, false
}

func pushdownStringFilter(f *logql.StringLabelFilter) (logsql.Filter, bool) {
	if f.MatchValue("") != (f.Type == logql.MatchNotEqual || f.Type == logql.MatchNotRegexp) {
		return nil, false
	}
	switch f.Type {
	case logql.MatchEqual:
		return logsql.Exact{Field: f.Name, Value: f.Value}, true
	case logql.MatchNotEqual:
		return logsql.Not{F: logsql.Exact{Field: f.Name, Value: f.Value}}, true
	case logql.MatchRegexp:
		return logsql.Regexp{Field: f.Name, Re: f.Pattern()}, true
	}
	return logsql.Not{F: logsql.Regexp{Field: f.Name, Re: f.Pattern()}}, true
}

// reorderStages moves line filters ahead of the other stages of their
// segment, as Loki's MultiStageExpr.reorderStages does; a label filter or
// a line_format ends a segment.
func reorderStages(stages []logql.Stage) []logql.Stage {
	out := make([]logql.Stage, 0, len(stages))
	var lines, others []logql.Stage
	flush := func() {
		out = append(append(out, lines...), others...)
		lines, others = lines[:0], others[:0]
	}
	for _, st := range stages {
		switch st.(type) {
		case *logql.LabelFilterExpr:
			flush()
			out = append(out, st)
		case *logql.LineFilterExpr:
			lines = append(lines, st)
		case *logql.LineFmtExpr:
			// Line filters after a line_format read the formatted line.
			others = append(others, st)
			flush()
		case *logql.LabelParserExpr:
			others = append(others, st)
			if st.(*logql.LabelParserExpr).Op == "unpack" {
				// unpack may replace the line too.
				flush()
			}
		default:
			others = append(others, st)
		}
	}
	flush()
	return out
}
