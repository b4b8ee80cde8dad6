package pattern

import (
	"reflect"
	"testing"
)

// Cases follow the behaviour Loki documents for its pattern matcher.
func TestLineFilter(t *testing.T) {
	cases := []struct {
		pattern, line string
		want          bool
	}{
		{"<_> bar", "foo bar baz", false},
		{"<_> baz", "foo bar baz", true},
		{"foo <_>", "foo bar baz", true},
		{"<_> bar <_>", " bar ", false},
		{"<_>bar<_>", " bar ", true},
		{"<_> 404 <_>", `GET /x 404 12`, true},
		{"<_> 404 <_>", `GET /x 200 12`, false},
	}
	for _, c := range cases {
		e, err := Parse(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Test(c.line); got != c.want {
			t.Errorf("%q on %q: got %v", c.pattern, c.line, got)
		}
	}
}

func TestParserMatches(t *testing.T) {
	e, err := Parse(`<ip> - <_> "<method> <path> <_>" <status>`)
	if err != nil || e.ValidateParser() != nil {
		t.Fatal(err)
	}
	got := e.Matches(`1.2.3.4 - - "GET /a HTTP/1.1" 200 99`)
	if want := []string{"1.2.3.4", "GET", "/a", "200 99"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
	if got := e.Matches("no separators"); !reflect.DeepEqual(got, []string{"no separators"}) {
		t.Fatalf("missing literal: got %q", got)
	}
}

func TestValidation(t *testing.T) {
	cases := map[string]string{
		"foo":       "at least one capture is required",
		"<a><b>":    "found consecutive capture '<a><b>': invalid expression",
		"<a> x <a>": "duplicate capture name (a): invalid expression",
		"<1a> <b>":  "",
		"< a> <b>":  "",
	}
	for in, want := range cases {
		e, err := Parse(in)
		if err == nil {
			err = e.ValidateParser()
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
}
