package plan

import (
	"strings"

	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/logsql"
)

// StreamFilter translates Loki matchers to a VictoriaLogs stream filter.
// Both compare a missing label as "" and anchor regexes; Loki's regexes
// also let `.` match a newline, which (?s:) preserves.
func StreamFilter(ms []*logql.Matcher) logsql.StreamFilter {
	f := logsql.StreamFilter{Matchers: make([]logsql.StreamMatcher, 0, len(ms))}
	for _, m := range ms {
		f.Matchers = append(f.Matchers, logsql.StreamMatcher{Label: m.Name, Op: streamOp(m.Type), Value: streamValue(m)})
	}
	return f
}

func streamOp(t logql.MatchType) logsql.StreamOp {
	switch t {
	case logql.MatchNotEqual:
		return logsql.StreamNotEq
	case logql.MatchRegexp:
		return logsql.StreamRegex
	case logql.MatchNotRegexp:
		return logsql.StreamNotRegex
	}
	return logsql.StreamEq
}

func streamValue(m *logql.Matcher) string {
	if (m.Type == logql.MatchRegexp || m.Type == logql.MatchNotRegexp) && strings.Contains(m.Value, ".") {
		return "(?s:" + m.Value + ")"
	}
	return m.Value
}

// SelectorQuery is the LogsQL text selecting a stream selector's rows.
func SelectorQuery(ms []*logql.Matcher) string {
	return logsql.Query{Filter: StreamFilter(ms)}.String()
}
