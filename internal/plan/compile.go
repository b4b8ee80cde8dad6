package plan

import (
	"fmt"

	"github.com/grafana/regexp"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/logsql"
)

// CompileLog plans a log query: the selector becomes a stream filter and
// every line filter is pushed down as a regex on _msg and re-checked
// locally with Loki's exact semantics.
func CompileLog(sel logql.LogSelectorExpr) (*LogQuery, error) {
	filters := logsql.And{StreamFilter(sel.Matchers())}
	q := &LogQuery{}
	for _, st := range sel.Stages() {
		switch st := st.(type) {
		case *logql.LineFilterExpr:
			if f := pushdownLineFilter(st); f != nil {
				filters = append(filters, f)
			}
			q.Local = append(q.Local, st)
		case *logql.DropLabelsExpr:
			q.Drop = append(q.Drop, st.Names...)
		default:
			return nil, fmt.Errorf("plan: unexpected stage %T", st)
		}
	}
	q.Pushdown = filters
	return q, nil
}

// pushdownLineFilter translates a line filter to a LogsQL filter selecting
// a superset of the lines it keeps; nil when it keeps every line.
//
// |= "x" is a substring match, so it becomes the regex filter ~"<quoted x>"
// (LogsQL's bare "x" is a word match). Empty lines are stored as marker
// rows whose _msg is VictoriaLogs' placeholder, so when the filter keeps an
// empty line the marker rows are added back, and otherwise excluded, so the
// filter is exact and VictoriaLogs can aggregate on it.
func pushdownLineFilter(f *logql.LineFilterExpr) logsql.Filter {
	alts := make(logsql.Or, 0, len(f.Values))
	for _, v := range f.Values {
		if !f.Type.Regexp() && v == "" {
			if f.Type.Negative() {
				return logsql.Not{F: logsql.Any{}}
			}
			return nil
		}
		re := v
		if !f.Type.Regexp() {
			re = regexp.QuoteMeta(v)
		}
		alts = append(alts, logsql.Regexp{Field: "_msg", Re: re})
	}
	var out logsql.Filter = alts
	if f.Type.Negative() {
		out = logsql.Not{F: alts}
	}
	marker := logsql.Exact{Field: backend.EmptyLineField, Value: "1"}
	if f.Match("") {
		return logsql.Or{out, marker}
	}
	return logsql.And{out, logsql.Not{F: marker}}
}
