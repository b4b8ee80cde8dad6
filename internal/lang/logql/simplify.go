package logql

import (
	"regexp"
	"regexp/syntax"
)

// Loki does not run a filter's regex as written: it first rewrites it
// into literal filters where it can, and those do not always mean what
// the regex says. vloki reproduces the outcome as an equivalent RE2
// pattern, used both to match locally and to push the filter down:
//
//   - a literal is an equality for a label filter, a substring for a line
//     filter; `(?i)` makes either case-insensitive;
//   - `.*` and the empty regex match everything, `.+` anything non-empty;
//   - a concatenation of at most three parts, one literal among `.*`
//     (and alternations after the literal), is a substring match, for
//     labels too: `lvl=~".*AR"` keeps "WARN";
//   - an alternation is the disjunction of its simplified branches, but a
//     branch matching everything is dropped, not kept: `err|` is `err`;
//   - a regex that does not simplify runs as written, anchored at both
//     ends for a label filter.
//
// The positive legs of a line filter's `or` are joined the same way: a
// leg matching everything is dropped when another leg remains.

// lokiRegex is a filter regex as Loki evaluates it: an RE2 pattern
// (searched, not anchored, unless the pattern anchors itself) and whether
// it matches everything.
type lokiRegex struct {
	pattern string
	all     bool
}

// simple is a simplified regex: one of the kinds below.
type simple struct {
	kind   simpleKind
	lit    string
	fold   bool
	either []simple
}

type simpleKind int

const (
	matchAll simpleKind = iota
	nonEmpty
	equalTo
	contains
	anyOf
)

// simplifyRegex returns how Loki evaluates re in a label (isLabel) or
// line filter; re must be a valid regex.
func simplifyRegex(re string, isLabel bool) lokiRegex {
	parsed, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return lokiRegex{pattern: anchored(re, isLabel)}
	}
	s, ok := simplifyNode(parsed.Simplify(), isLabel)
	if !ok {
		return lokiRegex{pattern: anchored(re, isLabel)}
	}
	if s.kind == matchAll {
		return lokiRegex{all: true}
	}
	return lokiRegex{pattern: s.pattern()}
}

func anchored(re string, isLabel bool) string {
	if isLabel {
		return "^(?:" + re + ")$"
	}
	return re
}

func simplifyNode(re *syntax.Regexp, isLabel bool) (simple, bool) {
	switch re.Op {
	case syntax.OpAlternate:
		return simplifyAlternate(re, isLabel)
	case syntax.OpConcat:
		return simplifyConcat(re, nil, false)
	case syntax.OpCapture:
		return simplifyNode(re.Sub[0], isLabel)
	case syntax.OpLiteral:
		kind := contains
		if isLabel {
			kind = equalTo
		}
		return literal(kind, string(re.Rune), foldCase(re)), true
	case syntax.OpStar:
		if re.Sub[0].Op == syntax.OpAnyCharNotNL {
			return simple{kind: matchAll}, true
		}
	case syntax.OpPlus:
		if re.Sub[0].Op == syntax.OpAnyCharNotNL {
			return simple{kind: nonEmpty}, true
		}
	case syntax.OpEmptyMatch:
		return simple{kind: matchAll}, true
	}
	return simple{}, false
}

// literal is an equality or substring test; an empty substring matches
// everything.
func literal(kind simpleKind, lit string, fold bool) simple {
	if kind == contains && lit == "" {
		return simple{kind: matchAll}
	}
	return simple{kind: kind, lit: lit, fold: fold}
}

func foldCase(re *syntax.Regexp) bool { return re.Flags&syntax.FoldCase != 0 }

func uncapture(re *syntax.Regexp) *syntax.Regexp {
	if re.Op == syntax.OpCapture {
		return re.Sub[0]
	}
	return re
}

func simplifyAlternate(re *syntax.Regexp, isLabel bool) (simple, bool) {
	var out *simple
	for _, sub := range re.Sub {
		s, ok := simplifyNode(uncapture(sub), isLabel)
		if !ok {
			return simple{}, false
		}
		out = orDroppingAll(out, s)
	}
	return *out, true
}

// orDroppingAll joins two filters as Loki does: a side that matches
// everything gives way to the other.
func orDroppingAll(a *simple, b simple) *simple {
	switch {
	case a == nil || a.kind == matchAll:
		return &b
	case b.kind == matchAll:
		return a
	}
	return &simple{kind: anyOf, either: []simple{*a, b}}
}

// simplifyConcat handles a concatenation: at most three parts, empty
// matches ignored, one literal (appended to base), `.*`, and alternations
// after the literal; the result is a substring match.
func simplifyConcat(re *syntax.Regexp, base []rune, baseFold bool) (simple, bool) {
	var subs []*syntax.Regexp
	for _, sub := range re.Sub {
		if sub = uncapture(sub); sub.Op != syntax.OpEmptyMatch {
			subs = append(subs, sub)
		}
	}
	if len(subs) > 3 {
		return simple{}, false
	}
	var curr *simple
	literals := 0
	for _, sub := range subs {
		switch {
		case sub.Op == syntax.OpLiteral:
			if literals != 0 {
				return simple{}, false
			}
			literals++
			base = append(base[:len(base):len(base)], sub.Rune...)
			baseFold = foldCase(sub)
		case sub.Op == syntax.OpAlternate && base != nil:
			var ok bool
			if curr, ok = simplifyConcatAlternate(sub, base, curr, baseFold); !ok {
				return simple{}, false
			}
		case sub.Op == syntax.OpStar && sub.Sub[0].Op == syntax.OpAnyCharNotNL:
		default:
			return simple{}, false
		}
	}
	if curr != nil {
		return *curr, true
	}
	if base != nil {
		return literal(contains, string(base), baseFold), true
	}
	return simple{}, false
}

// simplifyConcatAlternate handles `lit(a|b|)`: each branch prefixed by the
// literal, as substrings.
func simplifyConcatAlternate(re *syntax.Regexp, base []rune, curr *simple, baseFold bool) (*simple, bool) {
	for _, alt := range re.Sub {
		if !baseFold && foldCase(alt) {
			return nil, false
		}
		switch {
		case alt.Op == syntax.OpEmptyMatch, alt.Op == syntax.OpStar && alt.Sub[0].Op == syntax.OpAnyCharNotNL:
			curr = orDroppingAll(curr, literal(contains, string(base), baseFold))
		case alt.Op == syntax.OpLiteral:
			curr = orDroppingAll(curr, literal(contains, string(base)+string(alt.Rune), baseFold))
		case alt.Op == syntax.OpConcat:
			// The branch's own literal sets the case rule (Loki's does too).
			s, ok := simplifyConcat(alt, base, false)
			if !ok {
				return nil, false
			}
			curr = orDroppingAll(curr, s)
		default:
			return nil, false
		}
	}
	return curr, curr != nil
}

// pattern is an RE2 pattern matching what s matches.
func (s simple) pattern() string {
	lit := regexp.QuoteMeta(s.lit)
	if s.fold {
		lit = "(?i:" + lit + ")"
	}
	switch s.kind {
	case nonEmpty:
		return `(?s:.)`
	case equalTo:
		return "^" + lit + "$"
	case contains:
		return lit
	case anyOf:
		out := ""
		for i, e := range s.either {
			if i > 0 {
				out += "|"
			}
			out += "(?:" + e.pattern() + ")"
		}
		return out
	}
	return ""
}
