package logql

import (
	"strings"

	"github.com/grafana/regexp"
)

// LabelFilter is a label filter tree: comparisons combined with and/or.
type LabelFilter interface {
	// Match evaluates the filter on an entry's labels; numeric filters
	// record a conversion failure on it, as Loki's do.
	Match(l Entry) bool
	String() string
}

// Entry is what a label filter reads and may mark with an error.
type Entry interface {
	// Label returns a label's value and whether the entry has it.
	Label(name string) (string, bool)
	// SetErrorOnce records __error__ and its details unless one is set.
	SetErrorOnce(kind, details string)
}

// StringLabelFilter is `name op "value"`. Its regex is evaluated as Loki
// evaluates it (simplifyRegex): mostly anchored, `.` not matching a
// newline (unlike selectors), some shapes as substring tests.
type StringLabelFilter struct {
	Type  MatchType
	Name  string
	Value string
	re    *regexp.Regexp
	// pattern is the RE2 pattern re was compiled from.
	pattern string
}

func newStringLabelFilter(t MatchType, name, value string) (*StringLabelFilter, error) {
	f := &StringLabelFilter{Type: t, Name: name, Value: value}
	if t == MatchRegexp || t == MatchNotRegexp {
		if _, err := compileRegexp(value); err != nil {
			return nil, err
		}
		f.pattern = simplifyRegex(value, true).pattern
		re, err := compileRegexp(f.pattern)
		if err != nil {
			return nil, err
		}
		f.re = re
	}
	return f, nil
}

// Pattern is the RE2 pattern (searched) matching the values a regex
// filter matches, as Loki evaluates it; "" matches everything.
func (f *StringLabelFilter) Pattern() string { return f.pattern }

// Match compares the label's value; a missing label compares as "".
func (f *StringLabelFilter) Match(l Entry) bool {
	v, _ := l.Label(f.Name)
	return f.MatchValue(v)
}

// MatchValue compares a value.
func (f *StringLabelFilter) MatchValue(v string) bool {
	switch f.Type {
	case MatchNotEqual:
		return v != f.Value
	case MatchRegexp:
		return f.re.MatchString(v)
	case MatchNotRegexp:
		return !f.re.MatchString(v)
	}
	return v == f.Value
}

func (f *StringLabelFilter) String() string {
	return f.Name + f.Type.String() + quote(f.Value)
}

// BinaryLabelFilter is `a and b` or `a or b`.
type BinaryLabelFilter struct {
	And         bool
	Left, Right LabelFilter
}

// Match combines both sides as Loki does: `or` stops at a true left side;
// `and` evaluates both (for their error side effects).
func (f *BinaryLabelFilter) Match(l Entry) bool {
	left := f.Left.Match(l)
	if !f.And && left {
		return true
	}
	right := f.Right.Match(l)
	if f.And {
		return left && right
	}
	return right
}

func (f *BinaryLabelFilter) String() string {
	op := " or "
	if f.And {
		op = " , "
	}
	return "( " + f.Left.String() + op + f.Right.String() + " )"
}

// LabelFilterExpr is a `| <label filter>` stage.
type LabelFilterExpr struct {
	Filter LabelFilter
}

func (e *LabelFilterExpr) String() string { return "| " + e.Filter.String() }

func quote(s string) string {
	var b strings.Builder
	b.WriteString(strconvQuote(s))
	return b.String()
}
