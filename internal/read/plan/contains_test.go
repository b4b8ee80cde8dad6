package plan

import (
	"slices"
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// TestContainsAreOneValueLineAndLabelFilters: `|=` filters of one value on
// the stored line, and `name="v"` label filters whose value a template or
// a changed line cannot have made, say what every kept row holds.
func TestContainsAreOneValueLineAndLabelFilters(t *testing.T) {
	for q, want := range map[string][]string{
		`{a="b"} |= "x" |= "y"`:                    {"x", "y"},
		`{a="b"} |= "x" or "y"`:                    nil,
		`{a="b"} != "x" |~ "y" |> "<_>"`:           nil,
		`{a="b"} | json | level="info" |= "x"`:     {"info", "x"},
		`{a="b"} | json | t="v" | u!="w"`:          {"v"},
		`{a="b"} | logfmt | t="v" and u="w"`:       {"v", "w"},
		`{a="b"} | json | t="v" or u="w"`:          nil,
		`{a="b"} | t="v" | __error__=""`:           {"v"},
		`{a="b"} | label_format t="x" | t="v"`:     nil,
		`{a="b"} | line_format "x" | json | t="v"`: nil,
		`{a="b"} | line_format "{{.a}}" |= "x"`:    nil,
		`{a="b"} |= "x" | line_format "{{.a}}"`:    {"x"},
		`{a="b"} | decolorize |= "x"`:              {"x"}, // Loki moves line filters ahead of decolorize
		`{a="b"} |= ip("10.0.0.1")`:                nil,
		`{a="b"} |= "x" | unpack |= "y"`:           {"x"},
	} {
		e, err := logql.ParseExpr(q)
		if err != nil {
			t.Fatal(err)
		}
		lq, err := CompileLog(e.(logql.LogSelectorExpr), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(lq.Contains, want) {
			t.Errorf("%s: %q, want %q", q, lq.Contains, want)
		}
		if lq, _ := CompileLog(e.(logql.LogSelectorExpr), &otheragents.Config{}); len(lq.Contains) != 0 {
			t.Errorf("%s over other agents' data: %q", q, lq.Contains)
		}
	}
}

// TestWithinNarrowsTheReadButNotTheName: Within adds the parts to the
// pushdown, each its range and its streams (none: no row), and the query
// keeps the name it had.
func TestWithinNarrowsTheReadButNotTheName(t *testing.T) {
	e, err := logql.ParseExpr(`{a="b"} |= "x"`)
	if err != nil {
		t.Fatal(err)
	}
	streams := []lokidata.Labels{{{Name: "a", Value: "b"}, {Name: "pod", Value: "1"}}, {{Name: "a", Value: "b"}}}
	for _, ranges := range [][]NeedlePart{{{Start: 0, End: 9}, {Start: 20, End: 29, Streams: streams}}, nil} {
		lq, err := CompileLog(e.(logql.LogSelectorExpr), nil)
		if err != nil {
			t.Fatal(err)
		}
		planned := logsql.Query{Filter: lq.Pushdown}.String()
		lq.Within(ranges)
		got := logsql.Query{Filter: lq.Pushdown}.String()
		want := "((_time:[1970-01-01T00:00:00.000000000Z, 1970-01-01T00:00:00.000000009Z] OR (_time:[1970-01-01T00:00:00.000000020Z, 1970-01-01T00:00:00.000000029Z] AND ({a=\"b\",pod=\"1\"} OR {a=\"b\"}))) AND " + planned + ")"
		if ranges == nil {
			want = "(!(*) AND " + planned + ")"
		}
		if got != want {
			t.Errorf("%v:\n got  %s\n want %s", ranges, got, want)
		}
		if w := (logsql.Query{Filter: lq.WidePushdown()}).String(); w != planned {
			t.Errorf("%v: wide pushdown %s, planned %s", ranges, w, planned)
		}
	}
}
