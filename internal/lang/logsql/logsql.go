// Package logsql builds LogsQL query text from typed parts, with correct
// quoting, so no other package concatenates LogsQL by hand.
package logsql

import (
	"strconv"
	"strings"
)

// Filter is one LogsQL filter expression.
type Filter interface {
	appendTo(b []byte) []byte
}

// Quote returns s as a LogsQL quoted string.
func Quote(s string) string { return strconv.Quote(s) }

// fieldName quotes a field name unless it is a plain word.
func appendFieldName(b []byte, name string) []byte {
	if isPlainName(name) {
		return append(b, name...)
	}
	return strconv.AppendQuote(b, name)
}

func isPlainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return !isKeyword(s)
}

func isKeyword(s string) bool {
	switch strings.ToLower(s) {
	case "and", "or", "not":
		return true
	}
	return false
}

// StreamOp is a stream-filter comparison.
type StreamOp string

// Stream-filter comparisons; regexes are fully anchored like Prometheus'.
const (
	StreamEq       StreamOp = "="
	StreamNotEq    StreamOp = "!="
	StreamRegex    StreamOp = "=~"
	StreamNotRegex StreamOp = "!~"
)

// StreamMatcher is one label matcher inside a stream filter.
type StreamMatcher struct {
	Label string
	Op    StreamOp
	Value string
}

// StreamFilter is `{a="b", c=~"d"}`: every matcher must hold. A label a
// stream lacks compares as the empty string.
type StreamFilter struct {
	Matchers []StreamMatcher
}

func (f StreamFilter) appendTo(b []byte) []byte {
	b = append(b, '{')
	for i, m := range f.Matchers {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFieldName(b, m.Label)
		b = append(b, m.Op...)
		b = strconv.AppendQuote(b, m.Value)
	}
	return append(b, '}')
}

// Regexp is `field:~"re"`: an unanchored RE2 match.
type Regexp struct {
	Field string
	Re    string
}

func (f Regexp) appendTo(b []byte) []byte {
	b = appendFieldName(b, f.Field)
	b = append(b, ":~"...)
	return strconv.AppendQuote(b, f.Re)
}

// Exact is `field:="value"`; an empty value matches a missing field.
type Exact struct {
	Field string
	Value string
}

func (f Exact) appendTo(b []byte) []byte {
	b = appendFieldName(b, f.Field)
	b = append(b, ":="...)
	return strconv.AppendQuote(b, f.Value)
}

// StreamIDs is `_stream_id:in(id, ...)`: the rows of these streams.
type StreamIDs []string

func (f StreamIDs) appendTo(b []byte) []byte {
	b = append(b, "_stream_id:in("...)
	for i, id := range f {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendQuote(b, id)
	}
	return append(b, ')')
}

// TimeRange is `_time:[start, end]` with both ends inclusive, in Unix ns.
type TimeRange struct {
	Start, End int64
}

func (f TimeRange) appendTo(b []byte) []byte {
	b = append(b, "_time:["...)
	b = appendTime(b, f.Start)
	b = append(b, ", "...)
	b = appendTime(b, f.End)
	return append(b, ']')
}

// Text is a filter already written in LogsQL (a caller's own query text),
// kept in parentheses so it composes with others.
type Text string

func (f Text) appendTo(b []byte) []byte {
	b = append(b, '(')
	b = append(b, f...)
	return append(b, ')')
}

// Not negates a filter.
type Not struct{ F Filter }

func (f Not) appendTo(b []byte) []byte {
	b = append(b, "!("...)
	b = f.F.appendTo(b)
	return append(b, ')')
}

// And requires every filter.
type And []Filter

func (f And) appendTo(b []byte) []byte { return appendJoined(b, f, " AND ") }

// Or requires any filter.
type Or []Filter

func (f Or) appendTo(b []byte) []byte { return appendJoined(b, f, " OR ") }

func appendJoined(b []byte, fs []Filter, sep string) []byte {
	if len(fs) == 0 {
		return append(b, '*')
	}
	b = append(b, '(')
	for i, f := range fs {
		if i > 0 {
			b = append(b, sep...)
		}
		b = f.appendTo(b)
	}
	return append(b, ')')
}

// AtLeast is `field:>=min`: the field holds a number of at least min.
type AtLeast struct {
	Field string
	Min   int64
}

func (f AtLeast) appendTo(b []byte) []byte {
	b = appendFieldName(b, f.Field)
	b = append(b, ":>="...)
	return strconv.AppendInt(b, f.Min, 10)
}

// Any matches every row.
type Any struct{}

func (Any) appendTo(b []byte) []byte { return append(b, '*') }

// Pipe is one `| ...` stage.
type Pipe interface {
	appendTo(b []byte) []byte
}

// SortByTime is `sort by (_time [desc]) [limit N]`.
type SortByTime struct {
	Desc  bool
	Limit int
}

func (p SortByTime) appendTo(b []byte) []byte {
	b = append(b, "sort by (_time"...)
	if p.Desc {
		b = append(b, " desc"...)
	}
	b = append(b, ')')
	if p.Limit > 0 {
		b = append(b, " limit "...)
		b = strconv.AppendInt(b, int64(p.Limit), 10)
	}
	return b
}

// Fields is `fields a, b, ...`: rows keep only these fields.
type Fields []string

func (p Fields) appendTo(b []byte) []byte { return appendFieldList(append(b, "fields "...), p) }

// appendFieldList writes field names separated by commas.
func appendFieldList(b []byte, names []string) []byte {
	for i, f := range names {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendFieldName(b, f)
	}
	return b
}

// TimeEdge is `stats min(_time) as t, count() as n` (max when not Desc):
// the last timestamp of rows sorted by time, and how many there are.
type TimeEdge struct{ Desc bool }

func (p TimeEdge) appendTo(b []byte) []byte {
	if p.Desc {
		return append(b, "stats min(_time) as t, count() as n"...)
	}
	return append(b, "stats max(_time) as t, count() as n"...)
}

// Limit is `limit n`: the first n rows VictoriaLogs finds.
type Limit int

func (p Limit) appendTo(b []byte) []byte {
	b = append(b, "limit "...)
	return strconv.AppendInt(b, int64(p), 10)
}

// Delete is `delete f1, f2`.
type Delete []string

func (p Delete) appendTo(b []byte) []byte { return appendFieldList(append(b, "delete "...), p) }

// Query is a filter followed by pipes.
type Query struct {
	Filter Filter
	Pipes  []Pipe
}

// String renders the query as LogsQL.
func (q Query) String() string {
	var b []byte
	if q.Filter == nil {
		b = append(b, '*')
	} else {
		b = q.Filter.appendTo(b)
	}
	for _, p := range q.Pipes {
		b = append(b, " | "...)
		b = p.appendTo(b)
	}
	return string(b)
}
