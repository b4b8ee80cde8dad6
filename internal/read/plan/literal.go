package plan

import (
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/vloki/vloki/internal/lang/logsql"
)

// A line filter's regexp that does not start with a case-sensitive
// literal, such as `\bqueen\b`, `\d+ms timeout` or Grafana's
// case-insensitive `(?i)error`, makes Go's regexp (VictoriaLogs' too) try
// a match at every byte of every line: 24–50 µs for an 800-byte line,
// where looking for a substring takes ~50 ns. When every match holds a
// literal, the pushdown asks for that substring first
// (withLiteralFirst), or, for a literal under (?i), for any of the
// spellings its case folds allow: VictoriaLogs applies an And's filters
// in turn to the rows left, so the regexp runs only on the lines holding
// it. The rows selected are the same, on any data: the literal is
// necessary.

// maxSpellings bounds the substrings a folded literal is looked for as:
// each costs a substring search of the line, and ~15 bytes of the LogsQL
// query (an external VictoriaLogs v1.48+ refuses queries over its
// -search.maxQueryLen, 16 KiB by default). minFolded is the fewest
// characters worth looking for.
const (
	maxSpellings = 32
	minFolded    = 3
)

// withLiteralFirst is the regexp filter on _msg (re, parsed as p),
// preceded by the substring filter of the literal it requires when the
// regexp does not start with one (Go's regexp and VictoriaLogs' already
// look for a leading literal first).
func withLiteralFirst(re string, p *syntax.Regexp) logsql.Filter {
	wide := logsql.Regexp{Field: "_msg", Re: re}
	if startsWithLiteral(p) {
		return wide
	}
	spellings := requiredLiteral(p, maxSpellings).spellings
	if len(spellings) == 0 {
		return wide
	}
	found := make(logsql.Or, len(spellings))
	for i, s := range spellings {
		found[i] = logsql.Regexp{Field: "_msg", Re: regexp.QuoteMeta(s)}
	}
	if len(found) == 1 {
		return logsql.And{found[0], wide}
	}
	return logsql.And{found, wide}
}

// literal is a substring every match holds, in one of its spellings (one
// unless it folds case).
type literal struct {
	spellings []string
	folded    bool
}

// worth orders literals: the longer the better (the shortest spelling
// counts), a case-sensitive one first among equals (one substring search,
// not many).
func (l literal) worth() int {
	if len(l.spellings) == 0 {
		return 0
	}
	n := math.MaxInt
	for _, s := range l.spellings {
		n = min(n, 2*utf8.RuneCountInString(s))
	}
	if l.folded {
		n--
	}
	return n
}

// requiredLiteral is the best literal every match of re holds, in at
// most budget spellings (none when none is known). A literal holding
// U+FFFD is left out: the regexp matches it on an invalid byte of the
// line instead.
func requiredLiteral(re *syntax.Regexp, budget int) literal {
	switch re.Op {
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, utf8.RuneError) {
			return literal{}
		}
		if re.Flags&syntax.FoldCase == 0 {
			return literal{spellings: []string{string(re.Rune)}}
		}
		return foldedLiteral(re.Rune, budget)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0], budget)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0], budget)
		}
	case syntax.OpConcat:
		var best literal
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub, budget); l.worth() > best.worth() {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		return alternateLiteral(re.Sub, budget)
	}
	return literal{}
}

// alternateLiteral is the union of the branches' literals, each branch
// given an equal share of the budget: a match holds one of them, as
// Grafana's `(?i)error|warn` holds a spelling of "erro" or of "warn".
func alternateLiteral(branches []*syntax.Regexp, budget int) literal {
	share := budget / len(branches)
	var out literal
	for _, b := range branches {
		l := requiredLiteral(b, share)
		if len(l.spellings) == 0 {
			return literal{}
		}
		for _, s := range l.spellings {
			if !slices.Contains(out.spellings, s) {
				out.spellings = append(out.spellings, s)
			}
		}
		out.folded = out.folded || l.folded
	}
	if len(out.spellings) > budget {
		return literal{}
	}
	return out
}

// foldedLiteral is the longest run of a literal under (?i) with at most
// budget spellings, the earliest among equals, and those spellings: each
// character in any of its simple case folds, as Go's regexp matches it
// (k also as the Kelvin sign). Runs shorter than minFolded are left out.
func foldedLiteral(runes []rune, budget int) literal {
	bestAt, bestLen := 0, 0
	for i := range runes {
		n := 1
		for j := i; j < len(runes); j++ {
			if n *= len(foldsOf(runes[j])); n > budget {
				break
			}
			if j-i+1 > bestLen {
				bestAt, bestLen = i, j-i+1
			}
		}
	}
	if bestLen < minFolded {
		return literal{}
	}
	spellings := []string{""}
	for _, r := range runes[bestAt : bestAt+bestLen] {
		var next []string
		for _, s := range spellings {
			for _, f := range foldsOf(r) {
				next = append(next, s+string(f))
			}
		}
		spellings = next
	}
	return literal{spellings: spellings, folded: true}
}

// foldsOf is r's orbit under unicode.SimpleFold: the runes (?i) takes
// for r.
func foldsOf(r rune) []rune {
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// startsWithLiteral reports whether every match of re starts with a
// case-sensitive literal, which the matchers find by a substring search
// already.
func startsWithLiteral(re *syntax.Regexp) bool {
	for {
		switch re.Op {
		case syntax.OpLiteral:
			return re.Flags&syntax.FoldCase == 0
		case syntax.OpCapture, syntax.OpConcat, syntax.OpPlus:
			if len(re.Sub) == 0 {
				return false
			}
			re = re.Sub[0]
		case syntax.OpRepeat:
			if re.Min < 1 {
				return false
			}
			re = re.Sub[0]
		default:
			return false
		}
	}
}
