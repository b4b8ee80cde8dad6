package logs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
)

type containsMatcher string

func (c containsMatcher) Match(line string) bool { return strings.Contains(line, string(c)) }

func row(app string, ts int64, line string, md ...string) logrow.Row {
	ls := lokidata.Labels{{Name: "app", Value: app}}
	r := logrow.Row{Labels: ls, Key: ls.String(), Hash: ls.Hash(), TimestampNs: ts, Line: line}
	for i := 0; i < len(md); i += 2 {
		r.Metadata = append(r.Metadata, lokidata.Label{Name: md[i], Value: md[i+1]})
	}
	return r
}

func render(res *Result) string {
	var parts []string
	for _, s := range res.Streams {
		var es []string
		for _, e := range s.Entries {
			es = append(es, fmt.Sprintf("%d:%s", e.TimestampNs, e.Line))
		}
		parts = append(parts, s.Labels.String()+" "+strings.Join(es, ","))
	}
	return strings.Join(parts, " | ")
}

func TestCollector(t *testing.T) {
	cases := []struct {
		name string
		req  Request
		rows []logrow.Row // in direction order
		want string
	}{
		{"limit across streams",
			Request{Limit: 3, Direction: Backward},
			[]logrow.Row{row("b", 9, "b9"), row("a", 8, "a8"), row("b", 7, "b7"), row("a", 6, "a6")},
			`{app="a"} 8:a8 | {app="b"} 9:b9,7:b7`},
		{"duplicates dropped, distinct metadata kept",
			Request{Limit: 10, Direction: Forward, Categorize: true},
			[]logrow.Row{row("a", 1, "x"), row("a", 1, "x"), row("a", 1, "x", "k", "v"), row("b", 1, "x")},
			`{app="a"} 1:x,1:x | {app="b"} 1:x`},
		{"local filter before limit",
			Request{Limit: 2, Direction: Forward, Query: &plan.LogQuery{Stages: []plan.Stage{plan.LineStage{M: containsMatcher("keep")}}}},
			[]logrow.Row{row("a", 1, "drop"), row("a", 2, "keep1"), row("a", 3, "drop"), row("a", 4, "keep2"), row("a", 5, "keep3")},
			`{app="a"} 2:keep1,4:keep2`},
		{"interval forward shared across streams",
			Request{Limit: 10, Direction: Forward, IntervalNs: 10},
			[]logrow.Row{row("a", 0, "a0"), row("b", 5, "b5"), row("b", 10, "b10"), row("a", 19, "a19"), row("a", 20, "a20")},
			`{app="a"} 0:a0,20:a20 | {app="b"} 10:b10`},
		{"interval backward",
			Request{Limit: 10, Direction: Backward, IntervalNs: 10},
			[]logrow.Row{row("a", 30, "a30"), row("a", 25, "a25"), row("a", 20, "a20"), row("a", 9, "a9")},
			`{app="a"} 30:a30,20:a20,9:a9`},
		{"one stream's timestamp: by labels after the pipeline, arrival among equals",
			Request{Limit: 10, Direction: Forward, Categorize: true},
			[]logrow.Row{row("a", 1, "first", "k", "v2"), row("a", 1, "second", "k", "v1"), row("a", 1, "third", "k", "v2"), row("a", 2, "later")},
			`{app="a"} 1:second,1:first,1:third,2:later`},
		{"the limit cuts a timestamp in arrival order",
			Request{Limit: 2, Direction: Forward, Categorize: true},
			[]logrow.Row{row("a", 1, "first", "k", "v2"), row("a", 1, "second", "k", "v1"), row("a", 1, "third", "k", "v0")},
			`{app="a"} 1:second,1:first`},
		{"a duplicate does not count toward the limit",
			Request{Limit: 2, Direction: Forward},
			[]logrow.Row{row("a", 1, "x"), row("a", 1, "x"), row("a", 1, "y"), row("a", 1, "z")},
			`{app="a"} 1:x,1:y`},
		{"metadata merged into labels without categorize",
			Request{Limit: 10, Direction: Forward},
			[]logrow.Row{row("a", 1, "x", "trace", "t1"), row("a", 2, "y")},
			`{app="a", trace="t1"} 1:x | {app="a"} 2:y`},
		{"metadata sets of one stream, repeated and past the kept sets",
			Request{Limit: 20, Direction: Forward},
			metadataRows(),
			`{app="a", k="v0"} 0:x0,10:x10 | {app="a", k="v1"} 1:x1,11:x11 | {app="a", k="v2"} 2:x2 | {app="a", k="v3"} 3:x3 | ` +
				`{app="a", k="v4"} 4:x4 | {app="a", k="v5"} 5:x5 | {app="a", k="v6"} 6:x6 | {app="a", k="v7"} 7:x7 | ` +
				`{app="a", k="v8"} 8:x8,12:x12 | {app="a", k="v9"} 9:x9 | {app="b", k="v0"} 13:b13`},
	}
	for _, c := range cases {
		if c.req.Query == nil {
			c.req.Query = &plan.LogQuery{}
		}
		col := NewCollector(c.req)
		col.addAll(c.rows)
		if got := render(col.Result()); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}
}

// metadataRows are one stream's entries with ten metadata sets (more than
// the collector keeps merged a stream), some repeated, then another
// stream with a set the first one has.
func metadataRows() []logrow.Row {
	var rows []logrow.Row
	for i := range 10 {
		rows = append(rows, row("a", int64(i), fmt.Sprintf("x%d", i), "k", fmt.Sprintf("v%d", i)))
	}
	rows = append(rows, row("a", 10, "x10", "k", "v0"), row("a", 11, "x11", "k", "v1"), row("a", 12, "x12", "k", "v8"))
	return append(rows, row("b", 13, "b13", "k", "v0"))
}
