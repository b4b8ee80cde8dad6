package plan

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/vloki/vloki/internal/lang/logsql"
)

// TestWithLiteralFirst: what a line filter's regexp that is not `\bw\b`
// looks for first.
func TestWithLiteralFirst(t *testing.T) {
	for re, want := range map[string][]string{
		`\Berror`:             {`error`},
		`\d+ms timeout`:       {`ms timeout`},
		`[a-z]+=(GET|PUT)`:    {`GET`, `PUT`},
		`\d(GET|\w)`:          nil,                                                 // a branch without a literal
		`(?i)error|warn`:      append(spellingsOf("erro"), spellingsOf("warn")...), // 16 spellings a branch
		`(?i)\b(error|warn)`:  append(spellingsOf("erro"), spellingsOf("warn")...),
		`\s(ab|(?i)xyz)`:      append([]string{`ab`}, spellingsOf("xyz")...),
		`(?:\s)(queen)\s`:     {`queen`},
		`x?abc{2}`:            {`ab`},
		`\w+(?:\.com)+`:       {`.com`},
		`(?i)err`:             {`ERR`, `ERr`, `ErR`, `Err`, `eRR`, `eRr`, `erR`, `err`},
		`(?i)sk\d`:            nil, // two folded characters are not worth it
		`(?i)ask`:             {`ASK`, `AS` + "\u212A", `ASk`, `A` + "\u017F" + `K`, `A` + "\u017F\u212A", `A` + "\u017F" + `k`, `AsK`, `As` + "\u212A", `Ask`, `aSK`, `aS` + "\u212A", `aSk`, `a` + "\u017F" + `K`, `a` + "\u017F\u212A", `a` + "\u017F" + `k`, `asK`, `as` + "\u212A", `ask`},
		`(?i)\b[a-z]+ception`: spellingsOf("cepti"), // 2^9 spellings: the longest run of at most 32
		`\b(?i:err)or`:        {`ERR`, `ERr`, `ErR`, `Err`, `eRR`, `eRr`, `erR`, `err`},
		`\b(?i:e)rror`:        {`rror`},
		`\w*`:                 nil,
		`a|b`:                 nil,
		`error\b`:             nil, // leads with its literal: the matchers search it already
		`(error)+\d`:          nil,
		`\s` + "\uFFFD":       nil, // U+FFFD matches an invalid byte
		`[`:                   nil, // does not parse: the regexp filter alone (VictoriaLogs' error)
	} {
		got := firstLegs(t, re, regexpLeg(re))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("withLiteralFirst(%q) looks first for %q, want %q", re, got, want)
		}
	}
}

// spellingsOf is every ASCII case spelling of s (letters without other folds).
func spellingsOf(s string) []string {
	out := []string{""}
	for _, c := range s {
		var next []string
		for _, p := range out {
			next = append(next, p+strings.ToLower(string(c)), p+strings.ToUpper(string(c)))
		}
		out = next
	}
	return out
}

// firstLegs is what f looks for before the regexp re, unquoted.
func firstLegs(t *testing.T, re string, f logsql.Filter) []string {
	t.Helper()
	whole := logsql.Regexp{Field: "_msg", Re: re}
	if f == whole {
		return nil
	}
	and, ok := f.(logsql.And)
	if !ok || len(and) != 2 || and[1] != whole {
		t.Fatalf("%q: %#v is not a prefilter and the regexp", re, f)
	}
	var legs []logsql.Filter
	if or, ok := and[0].(logsql.Or); ok {
		legs = or
	} else {
		legs = []logsql.Filter{and[0]}
	}
	var out []string
	for _, l := range legs {
		p, err := syntax.Parse(l.(logsql.Regexp).Re, syntax.Perl)
		if err != nil || p.Op != syntax.OpLiteral || p.Flags&syntax.FoldCase != 0 {
			t.Fatalf("%q: leg %v is not a plain literal", re, l)
		}
		out = append(out, string(p.Rune))
	}
	return out
}

// TestRequiredLiteralIsInEveryMatch: on random lines, a line a regexp
// matches holds one of its literal's spellings (the prefilter never drops
// a row the regexp keeps).
func TestRequiredLiteralIsInEveryMatch(t *testing.T) {
	res := []string{`\Berror`, `\d+ms`, `(a|b)cd+e`, `\bxy\b`, `[^a]ab{1,3}c`, `(?s).?ba.?`, `(?:ab)+c`, `é\d`,
		`\w(?:xy|z)qq`, `a(?i:b)c`, `(?i)ask`, `(?i)\bSKé`, `(?i)x(?-i:e)rr`,
		`(?i)abx|erx`, `\s(?:ab|xy|zq)c`, `(?i)\b(?:kab|ser)`, `\d(ab|(?i)xer)`}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "c", "d", "e", "x", "y", "z", "q", "_", " ", "1", "ms", "error", "é", "É", "\xff", "B",
		"\n", "k", "K", "\u212A", "s", "S", "\u017F", "A", "r", "R"}
	for _, re := range res {
		p, err := syntax.Parse(re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		spellings := requiredLiteral(p, maxSpellings).spellings
		if len(spellings) == 0 {
			t.Fatalf("%q: no literal", re)
		}
		rx := regexp.MustCompile(re)
		matched := 0
		for range 100000 {
			var b strings.Builder
			for range 1 + r.IntN(10) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			line := b.String()
			if !rx.MatchString(line) {
				continue
			}
			matched++
			if !slices.ContainsFunc(spellings, func(s string) bool { return strings.Contains(line, s) }) {
				t.Fatalf("%q matches %q, which holds none of %q", re, line, spellings)
			}
		}
		if matched == 0 {
			t.Errorf("%q matched no random line: the check proved nothing", re)
		}
	}
}
