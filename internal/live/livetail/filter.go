package livetail

import (
	"github.com/vloki/vloki/internal/lang/logsql"
)

// tailFilter is the filter a VictoriaLogs live tail is asked with: the
// query's pushed-down filter with its stream filters widened to field
// filters. VictoriaLogs v1.121.0's live tail misses the first row of a
// stream in a new day partition when the stream also has rows in an
// earlier one and the tail filters by stream ({app="x"}: the row written
// just after midnight is lost), while a field filter (app:="x") finds it.
// Every stream field is also a field of each of its rows, so each stream
// matcher label="v" (v not empty) becomes label:="v", a condition every
// row of a matching stream meets; other stream matchers are dropped (a
// wider filter still). Filters under a negation stay as they are (widening
// there would narrow). The selector is then checked exactly on each row
// (logql.MatchLabels).
func tailFilter(f logsql.Filter) logsql.Filter {
	switch f := f.(type) {
	case logsql.StreamFilter:
		var out logsql.And
		for _, m := range f.Matchers {
			if m.Op == logsql.StreamEq && m.Value != "" {
				out = append(out, logsql.Exact{Field: m.Label, Value: m.Value})
			}
		}
		if len(out) == 0 {
			return logsql.Any{}
		}
		return out
	case logsql.And:
		out := make(logsql.And, len(f))
		for i, x := range f {
			out[i] = tailFilter(x)
		}
		return out
	case logsql.Or:
		out := make(logsql.Or, len(f))
		for i, x := range f {
			out[i] = tailFilter(x)
		}
		return out
	}
	return f
}
