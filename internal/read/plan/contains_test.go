package plan

import (
	"slices"
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// TestContainsAreTheStoredLinesOneValueFilters: only `|=` filters of one
// value on the stored line say what every kept line holds.
func TestContainsAreTheStoredLinesOneValueFilters(t *testing.T) {
	for q, want := range map[string][]string{
		`{a="b"} |= "x" |= "y"`:                 {"x", "y"},
		`{a="b"} |= "x" or "y"`:                 nil,
		`{a="b"} != "x" |~ "y" |> "<_>"`:        nil,
		`{a="b"} | json | level="info" |= "x"`:  {"x"},
		`{a="b"} | line_format "{{.a}}" |= "x"`: nil,
		`{a="b"} |= "x" | line_format "{{.a}}"`: {"x"},
		`{a="b"} | decolorize |= "x"`:           {"x"}, // Loki moves line filters ahead of decolorize
		`{a="b"} |= ip("10.0.0.1")`:             nil,
		`{a="b"} |= "x" | unpack |= "y"`:        {"x"},
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
