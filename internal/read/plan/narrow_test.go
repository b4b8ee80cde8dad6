package plan

import (
	"regexp/syntax"
	"testing"
)

func TestBoundedWord(t *testing.T) {
	for re, want := range map[string]string{
		`\bqueen\b`:     "queen",
		`\ba b\b`:       "a b",
		`\bx-1_y\b`:     "x-1_y",
		`\b_\b`:         "_",
		`\bqueen`:       "",
		`queen\b`:       "",
		`\b(?i)queen\b`: "",
		`\bqu.en\b`:     "",
		`\bqueens?\b`:   "",
		`\bkönig\b`:     "",
		`\b-a\b`:        "",
		`\ba-\b`:        "",
		`\bqueen\B`:     "",
		`\b(queen)\b`:   "",
	} {
		p, err := syntax.Parse(re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := boundedWord(p)
		if got != want || ok != (want != "") {
			t.Errorf("boundedWord(%q) = %q %v, want %q", re, got, ok, want)
		}
	}
}
