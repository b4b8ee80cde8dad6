package logql

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestParseLogQueries(t *testing.T) {
	cases := map[string]string{
		`{app="a"}`:                               `{app="a"}`,
		`{ app = "a" , env=~"p.*" }`:              `{app="a", env=~"p.*"}`,
		"{app=`raw\\n`}":                          `{app="raw\\n"}`,
		`{app="a"} |= "x" != "y" |~ "z" !~ "w"`:   `{app="a"} |= "x" != "y" |~ "z" !~ "w"`,
		`{app="a"} |= "x" or "y" # comment`:       `{app="a"} |= "x" or "y"`,
		"{app=\"a\"}\n# only a comment\n|= \"x\"": `{app="a"} |= "x"`,
		`{rate="x"}`:                              `{rate="x"}`,
	}
	for in, want := range cases {
		e, err := ParseExpr(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := e.String(); got != want {
			t.Errorf("%s: printed %s want %s", in, got, want)
		}
		again, err := ParseExpr(e.String())
		if err != nil || again.String() != e.String() {
			t.Errorf("%s: round trip failed: %v", in, err)
		}
	}
}

// Expected texts follow Loki's yacc messages for these states (token names
// from its lexer table, positions from text/scanner).
func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		`{app="a"`:   "parse error at line 1, col 9: syntax error: unexpected $end, expecting } or ,",
		`{app}`:      "parse error at line 1, col 5: syntax error: unexpected }, expecting = or =~ or !~ or !=",
		`{app=1}`:    "parse error at line 1, col 6: syntax error: unexpected NUMBER, expecting STRING",
		`{="a"}`:     "parse error at line 1, col 2: syntax error: unexpected =, expecting IDENTIFIER or }",
		`{}`:         "parse error : " + errAtLeastOneMatcher,
		`{a=~".*"}`:  "parse error : " + errAtLeastOneMatcher,
		`{a!="b"}`:   "parse error : " + errAtLeastOneMatcher,
		`{a=~"(b"}`:  "parse error : error parsing regexp: missing closing ): `(b`",
		`{a="b"} |=`: "parse error at line 1, col 11: syntax error: unexpected $end, expecting STRING or ip",
	}
	for in, want := range cases {
		_, err := ParseExpr(in)
		var pe *ParseError
		if !errors.As(err, &pe) || err.Error() != want {
			t.Errorf("%s:\n got  %v\n want %s", in, err, want)
		}
	}
	if _, err := ParseExpr(`{a="` + strings.Repeat("x", maxInputSize) + `"}`); err == nil || !strings.Contains(err.Error(), "input size too long") {
		t.Errorf("long query: %v", err)
	}
}

func TestLineFilterMatch(t *testing.T) {
	cases := []struct {
		q    string
		line string
		want bool
	}{
		{`{a="b"} |= "err"`, "errors", true},
		{`{a="b"} |= "Err"`, "errors", false},
		{`{a="b"} != "err"`, "errors", false},
		{`{a="b"} |= ""`, "", true},
		{`{a="b"} |= "a" or "b"`, "xbx", true},
		{`{a="b"} != "a" or "b"`, "xbx", false},
		{`{a="b"} != "a" or "b"`, "xcx", true},
		{`{a="b"} |~ "^$"`, "", true},
		{`{a="b"} |~ "a.b"`, "a\nb", false},
		{`{a="b"} !~ "(?i)ERR"`, "err", false},
	}
	for _, c := range cases {
		e, err := ParseExpr(c.q)
		if err != nil {
			t.Fatal(err)
		}
		f := e.(LogSelectorExpr).Stages()[0].(*LineFilterExpr)
		if got := f.Match(c.line); got != c.want {
			t.Errorf("%s on %q: got %v", c.q, c.line, got)
		}
	}
}

// FuzzParseExpr checks that parsing never panics and that printing is a
// fixed point: the printed form parses back to the same printed form.
func FuzzParseExpr(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		e, err := ParseExpr(q)
		if err != nil {
			return
		}
		printed := e.String()
		if strings.Contains(printed, "NaN") || strings.Contains(printed, "Inf") || negativeZero.MatchString(printed) {
			// Folded literals such as 0 % 0 or -0 print as Loki prints
			// them, which Loki's lexer does not read back (-0 is a
			// duration to it).
			return
		}
		again, err := ParseExpr(printed)
		if err != nil {
			t.Fatalf("printed form %q of %q does not parse: %v", printed, q, err)
		}
		if again.String() != printed {
			t.Fatalf("printing is not stable for %q: %q then %q", q, printed, again.String())
		}
	})
}

var negativeZero = regexp.MustCompile(`-0($|[^0-9.])`)

// FuzzLexer reads every token of arbitrary input without panicking and
// always reaches the end.
func FuzzLexer(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		l := newLexer(q)
		for i := 0; i <= len(q)+1; i++ {
			if tok := l.next(); tok.kind == tEOF || tok.kind == tError || l.err != nil {
				return
			}
		}
		t.Fatalf("lexer did not reach the end of %q", q)
	})
}

var fuzzSeeds = []string{
	`{app="a"} |= "x" or "y"`, `{a=~"b.*"} !~ "c"`, `sum(rate({a="b"}[1m]))`, "{a=`x`}",
	`{a="b"} | json | line_format "{{.x}}" | label_format y=x, z="{{.w}}" | x > 1.5s or y=~"q"`,
	`sum by (a) (count_over_time({a="b"} | logfmt --strict k="v" | drop __error__ [5m] offset 1h))`,
	`quantile_over_time(0.9, {a="b"} | pattern "<_> <x>" | unwrap duration(x) | __error__="" [1m]) by (c)`,
	`label_replace(rate({a="b"}[1m]), "d", "$1", "s", "(.*)") / on (a) group_left (c) vector(1)`,
	`{a="b"} |> "<_> x" != ip("10.0.0.0/8") | json p="q[0].r" | unpack | decolorize | keep a, b="c"`,
}

func BenchmarkParseSelectorWithFilters(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseExpr(`{app="api", env=~"prod|staging"} |= "error" != "timeout"`); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseMetricQueries(t *testing.T) {
	cases := map[string]string{
		`sum(rate({a="b"}[1m]))`:                                   `sum(rate({a="b"}[1m]))`,
		`sum by (level) (count_over_time({a="b"} |= "x" [5m]))`:    `sum by (level)(count_over_time({a="b"} |= "x"[5m]))`,
		`sum(count_over_time({a="b"}[5m] |= "x")) by (level)`:      `sum by (level)(count_over_time({a="b"} |= "x"[5m]))`,
		`count_over_time({a="b"} | drop __error__ [1h] offset 5m)`: `count_over_time({a="b"} | drop __error__[1h] offset 5m0s)`,
		`vector(1)+vector(1)`:                                      `(vector(1.000000) + vector(1.000000))`,
		`1 + 2 * 3`:                                                `7`,
		`2 ^ 3 ^ 2`:                                                `512`,
		`10 / 0`:                                                   `NaN`,
		`rate({a="b"}[1m]) > bool 2`:                               `(rate({a="b"}[1m]) > bool 2)`,
		`topk(2, sum by (a) (rate(({a="b"})[1m])))`:                `topk(2,sum by (a)(rate({a="b"}[1m])))`,
		`sum without (x) (bytes_rate({a="b"}[30s])) / on (y) sum(bytes_over_time({a="b"}[30s]))`: `(sum without (x)(bytes_rate({a="b"}[30s])) / on (y)  sum(bytes_over_time({a="b"}[30s])))`,
	}
	for in, want := range cases {
		e, err := ParseExpr(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := e.String(); got != want {
			t.Errorf("%s:\n printed %s\n want    %s", in, got, want)
		}
	}
	bad := map[string]string{
		`count_over_time({a="b"}[5m]) by (x)`: "parse error : grouping not allowed for count_over_time aggregation",
		`sum_over_time({a="b"}[5m])`:          "parse error : invalid aggregation sum_over_time without unwrap",
		`rate({a=~".*"}[5m])`:                 "parse error : " + errAtLeastOneMatcher,
	}
	for in, want := range bad {
		if _, err := ParseExpr(in); err == nil || err.Error() != want {
			t.Errorf("%s: got %v want %s", in, err, want)
		}
	}
}

// Grouping follows Loki's yacc grammar: and over or, while a comma or
// juxtaposition takes everything to its right.
func TestLabelFilterGrouping(t *testing.T) {
	cases := map[string]string{
		`{a="b"} | x="1" or y="2" and z="3"`: `{a="b"} | ( x="1" or ( y="2" , z="3" ) )`,
		`{a="b"} | x="1" and y="2" or z="3"`: `{a="b"} | ( ( x="1" , y="2" ) or z="3" )`,
		`{a="b"} | x="1", y="2" or z="3"`:    `{a="b"} | ( x="1" , ( y="2" or z="3" ) )`,
		`{a="b"} | x="1" y="2" or z="3"`:     `{a="b"} | ( x="1" , ( y="2" or z="3" ) )`,
		`{a="b"} | (x="1" or y="2") z!~"3"`:  `{a="b"} | ( ( x="1" or y="2" ) , z!~"3" )`,
	}
	for in, want := range cases {
		e, err := ParseExpr(in)
		if err != nil || e.String() != want {
			t.Errorf("%s:\n got  %v %v\n want %s", in, e, err, want)
		}
	}
}
