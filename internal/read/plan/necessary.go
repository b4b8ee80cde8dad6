package plan

import (
	"strings"

	"github.com/grafana/regexp"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
)

// necessaryCondition is a LogsQL filter every row that passes a label
// filter after a parser must match, nil when there is none. VictoriaLogs
// applies it to read fewer rows; the local stages still decide exactly.
//
// The rule, for `name = "v"` with v not empty: the entry's label name is
// v, so it came from
//   - a stream label: {name="v"};
//   - structured metadata: name:="v" (the stored field, which metadata of
//     the same name as a stream label overwrites: hence both);
//   - a parser (json, logfmt, regexp, pattern, json/logfmt parameters),
//     which copies values out of the line: _msg contains v, unless the
//     value was unescaped (JSON and logfmt escapes start with a
//     backslash: _msg contains "\"), or v holds a space where the line
//     held U+FFFD or invalid UTF-8 (Loki's json and logfmt parsers write
//     a space for them: _msg holds a byte outside ASCII).
//
// When every parser before the filter is a plain json (jsonOnly), v is a
// whole JSON string or number of the line, between a quote or a JSON
// delimiter on each side: "_msg contains v" is then the phrase v, which
// VictoriaLogs answers from its token blooms. The escape and non-ASCII
// legs are narrowable (narrow.go): they select nothing where the stream
// index knows the range holds no such line.
//
// Loki's string filters drop entries carrying a parse error like any other
// (only numeric, duration and bytes filters let them through), so the
// condition holds for them too. It is left out where a value can come from
// elsewhere: after label_format (templates), after a stage that changes
// the line before a parser reads it (line_format, decolorize, unpack), for
// data other agents wrote (names and detected_level are derived at read),
// and for v holding U+FFFD (no parsed value holds it).
// `and` needs both sides' conditions, `or` either side's.
//
// Numeric, duration and bytes filters get no condition. An exact one for
// `| json | n >= 500` exists — VictoriaLogs drops a row when unpack_json
// reads a plain decimal failing the comparison, the line holds no
// backslash and the word n once (Loki keeps a duplicate key's first value,
// unpack_json its last; Loki trims "n " to n), and no stored field n — but
// measured on the load tool's data it made the query 1.8× slower embedded
// and 1.6× over HTTP: VictoriaLogs' regex for the duplicate check costs
// ~8 µs a line, more than parsing the line in vloki.
func necessaryCondition(f logql.LabelFilter, jsonOnly bool) logsql.Filter {
	switch f := f.(type) {
	case *logql.StringLabelFilter:
		// Names starting with "__" are Loki's own (__error__ and its kin).
		if f.Type != logql.MatchEqual || f.Value == "" || strings.ContainsRune(f.Value, '\uFFFD') || strings.HasPrefix(f.Name, "__") {
			return nil
		}
		var inLine logsql.Filter = logsql.Regexp{Field: "_msg", Re: regexp.QuoteMeta(f.Value)}
		if jsonOnly {
			inLine = logsql.Phrase{Field: "_msg", Value: f.Value}
		}
		cond := logsql.Or{
			logsql.StreamFilter{Matchers: []logsql.StreamMatcher{{Label: f.Name, Op: logsql.StreamEq, Value: f.Value}}},
			logsql.Exact{Field: f.Name, Value: f.Value},
			inLine,
			escapedLines,
		}
		if strings.ContainsRune(f.Value, ' ') {
			cond = append(cond, nonASCIILines)
		}
		return cond
	case *logql.BinaryLabelFilter:
		l, r := necessaryCondition(f.Left, jsonOnly), necessaryCondition(f.Right, jsonOnly)
		switch {
		case f.And && l == nil:
			return r
		case f.And && r == nil:
			return l
		case f.And:
			return logsql.And{l, r}
		case l == nil || r == nil:
			return nil
		}
		return logsql.Or{l, r}
	}
	return nil
}

// heldValues are the values v of f's `name = "v"` filters every row it
// keeps must match, by necessaryCondition's rule: each is in the row's
// stream labels, its structured metadata, or its line (as stored, or with
// an escape read: a JSON or logfmt parser's \uXXXX). `or` holds none.
func heldValues(f logql.LabelFilter) []string {
	switch f := f.(type) {
	case *logql.StringLabelFilter:
		if f.Type != logql.MatchEqual || f.Value == "" || strings.ContainsRune(f.Value, '\uFFFD') || strings.HasPrefix(f.Name, "__") {
			return nil
		}
		return []string{f.Value}
	case *logql.BinaryLabelFilter:
		if f.And {
			return append(heldValues(f.Left), heldValues(f.Right)...)
		}
	}
	return nil
}
