package plan

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/vloki/vloki/internal/lang/logsql"
)

func TestWithLiteralFirst(t *testing.T) {
	for re, want := range map[string]string{
		`\Berror`:          `error`,
		`\d+ms timeout`:    `ms timeout`,
		`[a-z]+=(GET|PUT)`: `=`,
		`(?:\s)(queen)\s`:  `queen`,
		`x?abc{2}`:         `ab`,
		`\w+(?:\.com)+`:    `.com`,
		`(?i)\berror`:      ``, // folded: no case-sensitive literal
		`\b(?i:err)or`:     `or`,
		`\w*`:              ``,
		`a|b`:              ``,
		`error\b`:          ``, // leads with its literal: the matchers search it already
		`(error)+\d`:       ``,
		`\s` + "\uFFFD":    ``, // U+FFFD matches an invalid byte
		`[`:                ``, // does not parse: the regexp filter alone
	} {
		f := withLiteralFirst(re)
		got := ""
		if and, ok := f.(logsql.And); ok {
			got = and[0].(logsql.Regexp).Re
			if and[1] != (logsql.Regexp{Field: "_msg", Re: re}) {
				t.Errorf("%q: the regexp itself is not the second leg: %v", re, and)
			}
		} else if f != (logsql.Regexp{Field: "_msg", Re: re}) {
			t.Errorf("%q: %v, want the regexp filter", re, f)
		}
		if got != regexp.QuoteMeta(want) {
			t.Errorf("withLiteralFirst(%q) looks for %q first, want %q", re, got, regexp.QuoteMeta(want))
		}
	}
}

// TestRequiredLiteralIsInEveryMatch: on random lines, a line a regexp
// matches holds its required literal (the prefilter never drops a row the
// regexp keeps).
func TestRequiredLiteralIsInEveryMatch(t *testing.T) {
	res := []string{`\Berror`, `\d+ms`, `(a|b)cd+e`, `\bx_y\b`, `[^a]ab{1,3}c`, `(?s).?ba.?`, `(?:ab)+c`, `é\d`,
		`\w(?:xy|z)qq`, `a(?i:b)c`}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "c", "d", "e", "x", "y", "z", "q", "_", " ", "1", "ms", "error", "é", "\xff", "B", "\n"}
	for _, re := range res {
		p, err := syntax.Parse(re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		lit := requiredLiteral(p)
		if lit == "" {
			t.Fatalf("%q: no literal", re)
		}
		rx := regexp.MustCompile(re)
		matched := 0
		for range 20000 {
			var b strings.Builder
			for range 1 + r.IntN(12) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			line := b.String()
			if rx.MatchString(line) {
				matched++
				if !strings.Contains(line, lit) {
					t.Fatalf("%q matches %q, which lacks its literal %q", re, line, lit)
				}
			}
		}
		if matched == 0 {
			t.Errorf("%q matched no random line: the check proved nothing", re)
		}
	}
}
