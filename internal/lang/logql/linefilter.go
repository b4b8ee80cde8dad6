package logql

import (
	"strconv"
	"strings"

	"github.com/grafana/regexp"

	"github.com/vloki/vloki/internal/lang/logql/pattern"
)

// LineFilterType is a line filter's operator.
type LineFilterType int

// Line filter operators.
const (
	LineMatchEqual      LineFilterType = iota // |=  contains
	LineMatchNotEqual                         // !=  does not contain
	LineMatchRegexp                           // |~  unanchored RE2 match
	LineMatchNotRegexp                        // !~  no RE2 match
	LineMatchPattern                          // |>  pattern match
	LineMatchNotPattern                       // !>  no pattern match
)

func (t LineFilterType) String() string {
	return [...]string{"|=", "!=", "|~", "!~", "|>", "!>"}[t]
}

// Negative reports whether the filter keeps lines that do not match.
func (t LineFilterType) Negative() bool {
	return t == LineMatchNotEqual || t == LineMatchNotRegexp || t == LineMatchNotPattern
}

// Pattern reports whether values are pattern expressions.
func (t LineFilterType) Pattern() bool { return t == LineMatchPattern || t == LineMatchNotPattern }

// Regexp reports whether values are regular expressions.
func (t LineFilterType) Regexp() bool { return t == LineMatchRegexp || t == LineMatchNotRegexp }

// LineFilterExpr is one line-filter stage, `|= "a" or "b"`: a positive
// filter keeps a line matching any value; a negative one keeps a line
// matching none (Loki rewrites `!= "a" or "b"` to `!= "a" != "b"`).
type LineFilterExpr struct {
	Type   LineFilterType
	Values []string
	// IPs holds the matcher of each ip("...") value, nil for the others.
	IPs      []*IPMatcher
	res      []*regexp.Regexp
	patterns []pattern.Expr
	// regexes are the RE2 patterns res were compiled from (Loki's
	// evaluation, simplifyRegex); dropped marks the legs of a positive
	// `or` that match everything and that Loki drops beside the others.
	regexes []string
	dropped []bool
}

// HasIP reports an ip("...") value.
func (f *LineFilterExpr) HasIP() bool {
	for _, m := range f.IPs {
		if m != nil {
			return true
		}
	}
	return false
}

func newLineFilter(t LineFilterType, values []string) (*LineFilterExpr, error) {
	f := &LineFilterExpr{Type: t, Values: values}
	if t.Pattern() {
		for _, v := range values {
			e, err := pattern.Parse(v)
			if err == nil {
				err = e.ValidateLineFilter()
			}
			if err != nil {
				return nil, err
			}
			f.patterns = append(f.patterns, e)
		}
		return f, nil
	}
	all := make([]bool, len(values))
	for i, v := range values {
		all[i] = !t.Regexp() && v == ""
		if !t.Regexp() {
			continue
		}
		if _, err := compileRegexp(v); err != nil {
			return nil, err
		}
		lr := simplifyRegex(v, false)
		re, err := compileRegexp(lr.pattern)
		if err != nil {
			return nil, err
		}
		f.res, f.regexes, all[i] = append(f.res, re), append(f.regexes, lr.pattern), lr.all
	}
	f.dropped = droppedLegs(t, all)
	return f, nil
}

// droppedLegs marks the legs of a positive `or` that match everything
// when another leg does not: Loki joins the legs dropping those.
func droppedLegs(t LineFilterType, all []bool) []bool {
	if t.Negative() {
		return make([]bool, len(all))
	}
	someNot := false
	for _, a := range all {
		someNot = someNot || !a
	}
	if !someNot {
		return make([]bool, len(all))
	}
	return all
}

// Leg is one value of the filter as Loki evaluates it: its RE2 pattern
// (a regex or the quoted substring; "" matches everything), or dropped.
func (f *LineFilterExpr) Leg(i int) (pattern string, dropped bool) {
	if f.dropped != nil && f.dropped[i] {
		return "", true
	}
	if f.Type.Regexp() {
		return f.regexes[i], false
	}
	return regexp.QuoteMeta(f.Values[i]), false
}

// Match applies the stage to a line with Loki's semantics.
func (f *LineFilterExpr) Match(line string) bool {
	any := false
	for i, v := range f.Values {
		if f.dropped != nil && f.dropped[i] {
			continue
		}
		var hit bool
		switch {
		case f.IPs != nil && f.IPs[i] != nil:
			hit = f.IPs[i].MatchText(line)
		case f.Type.Pattern():
			hit = f.patterns[i].Test(line)
		case f.Type.Regexp():
			hit = f.res[i].MatchString(line)
		default:
			hit = strings.Contains(line, v)
		}
		if hit {
			any = true
			break
		}
	}
	return any != f.Type.Negative()
}

func (f *LineFilterExpr) String() string {
	parts := make([]string, len(f.Values))
	for i, v := range f.Values {
		parts[i] = strconv.Quote(v)
		if f.IPs != nil && f.IPs[i] != nil {
			parts[i] = f.IPs[i].String()
		}
	}
	sep := " or "
	if f.Type.Negative() {
		sep = " " + f.Type.String() + " "
	}
	return f.Type.String() + " " + strings.Join(parts, sep)
}
