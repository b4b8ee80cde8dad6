package plan

import (
	"regexp"
	"regexp/syntax"

	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
)

// Pushdowns VictoriaLogs answers from its token blooms where the kinds of
// lines a range holds are known (lokidata.LineKinds, from the stream
// index): the plan holds logsql.Narrowable legs, written in their wide,
// always exact form, and the engine narrows them per request (Narrow)
// once the index has told it which kinds the range's streams may hold.

var (
	// escapedLines selects the lines holding a backslash.
	escapedLines = logsql.Narrowable{Wide: logsql.Regexp{Field: "_msg", Re: `\\`}, Unless: uint8(lokidata.LineEscapes)}
	// nonASCIILines selects the lines holding a byte outside ASCII (RE2
	// reads an invalid byte as U+FFFD, outside ASCII too).
	nonASCIILines = logsql.Narrowable{Wide: logsql.Regexp{Field: "_msg", Re: `[^\x00-\x7F]`}, Unless: uint8(lokidata.LineNonASCII)}
)

// regexpLeg pushes down one regexp of a line filter. `\bw\b`, w an ASCII
// literal that starts and ends with a word character, is the phrase w or,
// on a line holding w and a byte outside ASCII, the regexp itself: RE2's
// \b is ASCII, VictoriaLogs' token characters are Unicode letters, digits
// and _, so where the phrase matches (w with no token character beside
// it) the regexp does, and where only the regexp does, a letter or digit
// outside ASCII stands beside w. On lines all ASCII the two are one (both
// take [0-9A-Za-z_] as word characters), so it narrows to the phrase,
// which VictoriaLogs answers from its token blooms. Either way the regexp runs
// on few lines (VictoriaLogs applies an Or's legs to the rows not matched
// yet, an And's to the rows left). Other regexps look for a literal they
// require first (withLiteralFirst).
func regexpLeg(re string) logsql.Filter {
	p, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return logsql.Regexp{Field: "_msg", Re: re}
	}
	w, ok := boundedWord(p)
	if !ok {
		return withLiteralFirst(re, p)
	}
	return logsql.Or{
		logsql.Phrase{Field: "_msg", Value: w},
		logsql.And{logsql.Regexp{Field: "_msg", Re: regexp.QuoteMeta(w)}, nonASCIILines, logsql.Regexp{Field: "_msg", Re: re}},
	}
}

// boundedWord returns w when p is exactly `\bw\b` as above.
func boundedWord(p *syntax.Regexp) (string, bool) {
	if p.Op != syntax.OpConcat || len(p.Sub) != 3 {
		return "", false
	}
	b1, lit, b2 := p.Sub[0], p.Sub[1], p.Sub[2]
	if b1.Op != syntax.OpWordBoundary || b2.Op != syntax.OpWordBoundary || lit.Op != syntax.OpLiteral ||
		lit.Flags&syntax.FoldCase != 0 || len(lit.Rune) == 0 {
		return "", false
	}
	for _, r := range lit.Rune {
		if r >= 0x80 {
			return "", false
		}
	}
	if !isWordRune(lit.Rune[0]) || !isWordRune(lit.Rune[len(lit.Rune)-1]) {
		return "", false
	}
	return string(lit.Rune), true
}

func isWordRune(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// Narrows reports whether the query's pushdown has legs Narrow can
// narrow.
func (q *LogQuery) Narrows() bool { return logsql.Narrows(q.Pushdown) }

// Narrow narrows the pushdown for a range whose lines are of no kinds
// but present.
func (q *LogQuery) Narrow(present lokidata.LineKinds) {
	if q.wide == nil {
		q.wide = q.Pushdown
	}
	q.Pushdown = logsql.Narrowed(q.Pushdown, uint8(present))
}

// NeedlePart is a part of a query's range where a needle index says its
// rows can be: only in Streams (nil: in any stream).
type NeedlePart struct {
	Start, End int64 // Unix ns, inclusive
	Streams    []lokidata.Labels
}

// Filter selects the part's rows: its time range, and its streams.
func (p NeedlePart) Filter() logsql.Filter {
	r := logsql.TimeRange{Start: p.Start, End: p.End}
	if p.Streams == nil {
		return r
	}
	return logsql.And{r, p.StreamsFilter()}
}

// StreamsFilter selects the rows of the part's streams (nil: of any),
// each by all its labels (vloki's own rows: labels are stream fields). A
// stream with more labels matches too, which only reads more.
func (p NeedlePart) StreamsFilter() logsql.Filter {
	if p.Streams == nil {
		return nil
	}
	each := make(logsql.Or, 0, len(p.Streams))
	for _, ls := range p.Streams {
		sf := logsql.StreamFilter{Matchers: make([]logsql.StreamMatcher, 0, len(ls))}
		for _, l := range ls {
			sf.Matchers = append(sf.Matchers, logsql.StreamMatcher{Label: l.Name, Op: logsql.StreamEq, Value: l.Value})
		}
		each = append(each, sf)
	}
	if len(each) == 0 {
		return logsql.Not{F: logsql.Any{}}
	}
	return each
}

// Within restricts the pushdown to the parts of the range that can hold
// the query's rows (a needle index's parts for Contains; none: no row can
// be). The rows it leaves out are rows the pushdown leaves out anyway, so
// it is as exact as before. It goes first: VictoriaLogs applies an And's
// filters in order, and the parts skip a block without reading a column,
// where a line filter reads every line of it.
func (q *LogQuery) Within(parts []NeedlePart) {
	if q.wide == nil {
		q.wide = q.Pushdown
	}
	some := make(logsql.Or, len(parts))
	for i, p := range parts {
		some[i] = p.Filter()
	}
	var within logsql.Filter = some
	if len(parts) == 0 {
		within = logsql.Not{F: logsql.Any{}}
	}
	q.Pushdown = logsql.And{within, q.Pushdown}
}

// WidePushdown is the pushdown as planned, before Narrow and Within: it
// selects the same rows as Pushdown, and names them the same for every
// range.
func (q *LogQuery) WidePushdown() logsql.Filter {
	if q.wide != nil {
		return q.wide
	}
	return q.Pushdown
}

// EachLog calls fn with every log query of m.
func EachLog(m Metric, fn func(*LogQuery)) {
	switch m := m.(type) {
	case *RangeAgg:
		if m.Log != nil {
			fn(m.Log)
		}
	case *SumOfRange:
		EachLog(m.Range, fn)
	case *VectorAgg:
		EachLog(m.Inner, fn)
	case *BinOp:
		EachLog(m.LHS, fn)
		EachLog(m.RHS, fn)
	case *LabelReplace:
		EachLog(m.Inner, fn)
	case *QuerierAnswer:
		EachLog(m.Inner, fn)
	}
}
