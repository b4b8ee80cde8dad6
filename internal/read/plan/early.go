package plan

import (
	"regexp/syntax"

	"github.com/vloki/vloki/internal/lang/logql"
)

// EarlyFilters are a pipeline's single-label filters, which Loki's parsers
// (json, logfmt, regexp, pattern, unpack) check the moment they set a
// label — wherever the filter sits in the pipeline — dropping the entry
// at once when it fails (log.Hints.ShouldContinueParsingLine).
type EarlyFilters struct {
	Names   []string
	Filters []logql.LabelFilter
}

// Check reports whether parsing may go on after setting the label: the
// first filter paired with its name decides.
func (e *EarlyFilters) Check(name string, entry logql.Entry) bool {
	if e == nil {
		return true
	}
	for i, n := range e.Names {
		if n == name {
			return e.Filters[i].Match(entry)
		}
	}
	return true
}

// add appends a filter as Loki's NewParserHint collects stages: and/or
// combinations are skipped.
func (e *EarlyFilters) add(f logql.LabelFilter) {
	switch f := f.(type) {
	case *logql.BinaryLabelFilter:
		return
	case *logql.StringLabelFilter:
		if matchesEverything(f) {
			// Loki runs it as a no-op stage, no filter.
			return
		}
		e.Filters = append(e.Filters, f)
		e.Names = append(e.Names, f.Name)
	case *logql.CompareLabelFilter:
		e.Filters = append(e.Filters, f)
		e.Names = append(e.Names, f.Name)
	case *logql.IPLabelFilter:
		e.Filters = append(e.Filters, f)
		e.Names = append(e.Names, f.Name)
	}
}

// with returns the filters with one more appended (an unwrap's single
// post filter), leaving e unchanged.
func (e *EarlyFilters) with(f logql.LabelFilter) *EarlyFilters {
	out := &EarlyFilters{Names: append([]string(nil), e.Names...), Filters: append([]logql.LabelFilter(nil), e.Filters...)}
	out.add(f)
	return out
}

// matchesEverything reports a `=~` filter Loki simplifies to its no-op
// filter (`.*`, an empty regex).
func matchesEverything(f *logql.StringLabelFilter) bool {
	if f.Type != logql.MatchRegexp {
		return false
	}
	re, err := syntax.Parse(f.Value, syntax.Perl)
	if err != nil {
		return false
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	return re.Op == syntax.OpEmptyMatch || (re.Op == syntax.OpStar && re.Sub[0].Op == syntax.OpAnyCharNotNL)
}
