package stages

import (
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
)

// BenchmarkStages runs one entry through each local pipeline stage (after
// the parser it needs), to compare their costs per line.
func BenchmarkStages(b *testing.B) {
	jsonLine := `{"level":"info","msg":"request served","status":200,"path":"/api/v1/items/42","took":"15ms","user":{"id":7,"country":"DE"}}`
	logfmtLine := `level=info msg="request served" status=200 path=/api/v1/items/42 took=15ms`
	cases := []struct{ name, query, line string }{
		{"line_filter", `{app="api"} |= "served" != "error"`, jsonLine},
		{"regex_filter", `{app="api"} |~ "status\":2[0-9]{2}"`, jsonLine},
		{"pattern_filter", `{app="api"} |> "<_> served<_>"`, logfmtLine},
		{"json", `{app="api"} | json`, jsonLine},
		{"json_params", `{app="api"} | json s="status", c="user.country"`, jsonLine},
		{"logfmt", `{app="api"} | logfmt`, logfmtLine},
		{"regexp", `{app="api"} | regexp "status=(?P<status>\\d+)"`, logfmtLine},
		{"pattern", `{app="api"} | pattern "<_> <_> status=<status> <_>"`, logfmtLine},
		{"label_filter_number", `{app="api"} | logfmt | status >= 200 and took < 1s`, logfmtLine},
		{"line_format", `{app="api"} | logfmt | line_format "{{.status}} {{.path | upper}}"`, logfmtLine},
		{"label_format", `{app="api"} | logfmt | label_format code="{{.status}}", route=path`, logfmtLine},
		{"decolorize", `{app="api"} | decolorize`, "\x1b[32mINFO\x1b[0m " + logfmtLine},
		{"drop_keep", `{app="api"} | logfmt | drop took | keep status, path`, logfmtLine},
		{"unpack", `{app="api"} | unpack`, `{"_entry":"` + "x=1" + `","pod":"a"}`},
	}
	labels := lokidata.Labels{{Name: "app", Value: "api"}, {Name: "env", Value: "prod"}}
	for _, c := range cases {
		e, err := logql.ParseExpr(c.query)
		if err != nil {
			b.Fatal(err)
		}
		q, err := plan.CompileLog(e.(logql.LogSelectorExpr), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.line)))
			for b.Loop() {
				row := logrow.Row{Labels: labels, Line: c.line, TimestampNs: 1}
				st := Entry{Row: &row}
				Run(q, &st)
				_ = st.OutputParsed()
			}
		})
	}
}
