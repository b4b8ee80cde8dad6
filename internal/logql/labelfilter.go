package logql

import (
	"strings"

	"github.com/grafana/regexp"
)

// LabelFilter is a label filter tree: string comparisons combined with
// and/or.
type LabelFilter interface {
	// Match evaluates the filter on a label lookup (a missing label
	// compares as "").
	Match(get func(name string) string) bool
	String() string
}

// StringLabelFilter is `name op "value"`. Its regex is anchored, and `.`
// does not match a newline (Loki's label filters, unlike selectors).
type StringLabelFilter struct {
	Type  MatchType
	Name  string
	Value string
	re    *regexp.Regexp
}

func newStringLabelFilter(t MatchType, name, value string) (*StringLabelFilter, error) {
	f := &StringLabelFilter{Type: t, Name: name, Value: value}
	if t == MatchRegexp || t == MatchNotRegexp {
		if _, err := regexp.Compile(value); err != nil {
			return nil, err
		}
		f.re = regexp.MustCompile("^(?:" + value + ")$")
	}
	return f, nil
}

// Match compares the label's value.
func (f *StringLabelFilter) Match(get func(string) string) bool { return f.MatchValue(get(f.Name)) }

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

// Match combines both sides.
func (f *BinaryLabelFilter) Match(get func(string) string) bool {
	if f.And {
		return f.Left.Match(get) && f.Right.Match(get)
	}
	return f.Left.Match(get) || f.Right.Match(get)
}

func (f *BinaryLabelFilter) String() string {
	op := " or "
	if f.And {
		op = " and "
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
