package plan

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/vloki/vloki/internal/lang/logsql"
)

// A line filter's regexp that does not start with a literal, such as
// `\bqueen\b` or `\d+ms timeout`, makes Go's regexp (VictoriaLogs' too) try
// a match at every byte of every line: ~50 µs for an 800-byte line, where
// looking for a substring takes ~50 ns. When every match holds a literal,
// the pushdown asks for that substring first (withLiteralFirst):
// VictoriaLogs applies an And's filters in turn to the rows left, so the
// regexp runs only on lines holding the literal. The rows selected are
// the same, on any data: the literal is necessary.

// withLiteralFirst is the regexp filter on _msg, preceded by the
// substring filter of its longest required literal when the regexp does
// not start with one (Go's regexp and VictoriaLogs' already look for a
// leading literal first).
func withLiteralFirst(re string) logsql.Filter {
	wide := logsql.Regexp{Field: "_msg", Re: re}
	p, err := syntax.Parse(re, syntax.Perl)
	if err != nil || startsWithLiteral(p) {
		return wide
	}
	lit := requiredLiteral(p)
	if lit == "" {
		return wide
	}
	return logsql.And{logsql.Regexp{Field: "_msg", Re: regexp.QuoteMeta(lit)}, wide}
}

// requiredLiteral is the longest case-sensitive literal every match of re
// holds, "" when none is known. A literal holding U+FFFD is left out: the
// regexp matches it on an invalid byte the line holds instead.
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase != 0 || strings.ContainsRune(s, utf8.RuneError) {
			return ""
		}
		return s
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		longest := ""
		for _, sub := range re.Sub {
			if s := requiredLiteral(sub); len(s) > len(longest) {
				longest = s
			}
		}
		return longest
	}
	return ""
}

// startsWithLiteral reports whether every match of re starts with a
// literal, which the matchers find by a substring search already.
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
