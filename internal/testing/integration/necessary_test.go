package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/frontend"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
)

// TestNecessaryConditionsKeepAnswers is the property test of the
// necessary conditions VictoriaLogs applies for label filters after
// parsers (plan/necessary.go): on generated lines — valid, malformed and
// nested JSON, duplicate keys, escaped values, logfmt with quotes and
// escapes, numbers in several forms, values in stream labels and
// structured metadata, words beside ASCII and Unicode neighbours, U+FFFD
// — every query answers exactly as the same plan run with only the stream
// selector pushed down. So does the plan narrowed (plan/narrow.go) over
// copies of the data holding only lines of the kinds it is narrowed for.
func TestNecessaryConditionsKeepAnswers(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	streams := generatedStreams(r, 1500)
	queries := []struct {
		q         string
		condition bool // a necessary condition is expected in the pushdown
	}{
		{`{app="nc"} | json | level="error"`, true},
		{`{app="nc"} | logfmt | level="error"`, true},
		{`{app="nc"} | json | a_level="error"`, true},
		{`{app="nc"} | json | level_extracted="error"`, true},
		{`{app="nc"} | json | status="500"`, true},
		{`{app="nc"} | json | level="error" or status="500"`, true},
		{`{app="nc"} | json | level="error", status="500"`, true},
		{`{app="nc"} | json | level="error" or status=~"5.."`, false},
		{`{app="nc"} | logfmt | level="error" | json | msg="a b"`, true},
		{`{app="nc"} | regexp "level=(?P<lvl>[a-z]+)" | lvl="error"`, true},
		{`{app="nc"} | pattern "<_>level=<lvl> <_>" | lvl="error"`, true},
		{`{app="nc"} | json lvl="level", inner="a.level" | lvl="error" or inner="error"`, true},
		{`{app="nc"} | logfmt | level="wärn"`, true},
		{`{app="nc"} | json | __error__="" | level="error"`, true},
		{`{app="nc"} | json | line_format "{{.msg}}" | logfmt | level="error"`, false},
		{`{app="nc"} | json | label_format level="{{.msg}}" | level="a b"`, false},
		{`{app="nc"} | json | status >= 500`, false},
		{`{app="nc"} | json | status < 300`, false},
		{`{app="nc"} | json | status == 200`, false},
		{`{app="nc"} | json | status != 200`, false},
		{`{app="nc"} | json | status > 250 and level="error"`, true},
		{`{app="nc"} |= "status" | json | status <= 200.5, code >= 1`, true}, // the line filter
		{`{app="nc"} | json | status >= 500 or level="error"`, false},
		{`{app="nc"} | logfmt | status >= 500`, false},
		{`{app="nc"} |~ "\\berror\\b"`, true},
		{`{app="nc"} !~ "\\berror\\b"`, true},
		{`{app="nc"} |~ "\\ba b\\b"`, true},
		{`{app="nc"} | json | msg="a b"`, true},
		{`{app="nc"} | logfmt | msg="a b"`, true},
		{`{app="nc"} | json | level="error" | json | status="500"`, true},
	}
	tn := (&tenant.Resolver{}).Map("nc")
	// Copies of the data holding only lines of some kinds, and the plans
	// narrowed for those kinds.
	kindsOnly := []lokidata.LineKinds{0, lokidata.LineEscapes, lokidata.LineNonASCII}
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			for _, s := range streams {
				b, err := json.Marshal(map[string]any{"streams": []any{s}})
				if err != nil {
					t.Fatal(err)
				}
				tg.pushJSON(t, "nc", json.RawMessage(b))
				for _, k := range kindsOnly {
					b, err := json.Marshal(map[string]any{"streams": []any{linesOfKinds(s, k)}})
					if err != nil {
						t.Fatal(err)
					}
					tg.pushJSON(t, kindsTenant(k), json.RawMessage(b))
				}
			}
			for _, q := range []string{
				`sum by (level) (count_over_time({app="nc"} | json | status >= 500 and level="error" | __error__="" [10m]))`,
				`sum(count_over_time({app="nc"} | logfmt | level="error" | __error__="" [10m]))`,
				`sum by (status) (rate({app="nc"} | json | code="1" and status != 200 | __error__="" [5m]))`,
			} {
				compareMetricWithoutConditions(t, tg.vl, tn, q)
			}
			for _, c := range queries {
				sel, err := logql.ParseLogSelector(c.q, true)
				if err != nil {
					t.Fatal(err)
				}
				pushed, err := plan.CompileLog(sel, nil)
				if err != nil {
					t.Fatal(err)
				}
				local := *pushed
				local.Pushdown = logsql.And{plan.StreamFilter(sel.Matchers(), nil)}
				if got := pushed.Pushdown.(logsql.And); (len(got) > 1) != c.condition {
					t.Errorf("%s: pushdown %v, condition expected %v", c.q, logsql.Query{Filter: got}, c.condition)
				}
				for _, dir := range []logs.Direction{logs.Backward, logs.Forward} {
					req := logs.Request{Start: base.UnixNano(), End: base.Add(time.Hour).UnixNano(), Limit: 5000, Direction: dir}
					req.Query = pushed
					a, _, err := logs.Walk(context.Background(), tg.vl, tn, req)
					if err != nil {
						t.Fatal(err)
					}
					req.Query = &local
					b, _, err := logs.Walk(context.Background(), tg.vl, tn, req)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(a.Streams, b.Streams) {
						t.Errorf("%s: answers differ: %d streams with the condition, %d without; %s", c.q, len(a.Streams), len(b.Streams), firstDifference(a.Streams, b.Streams))
					}
					if len(b.Streams) == 0 {
						t.Errorf("%s: no entry kept: the data does not exercise the filter", c.q)
					}
					for _, k := range kindsOnly {
						compareNarrowed(t, tg.vl, c.q, pushed, &local, k, dir)
					}
				}
			}
		})
	}
}

// kindsTenant is the tenant holding the lines of kinds k only.
func kindsTenant(k lokidata.LineKinds) string { return "nc-kinds-" + strconv.Itoa(int(k)) }

// linesOfKinds is stream s with only its lines of kinds within k.
func linesOfKinds(s map[string]any, k lokidata.LineKinds) map[string]any {
	var kept []any
	for _, v := range s["values"].([]any) {
		if lokidata.KindsOf(v.([]any)[1].(string))&^k == 0 {
			kept = append(kept, v)
		}
	}
	return map[string]any{"stream": s["stream"], "values": kept}
}

// compareNarrowed runs the plan narrowed for kinds k and the local plan
// over the tenant holding lines of those kinds only.
func compareNarrowed(t *testing.T, c *backend.Client, q string, pushed, local *plan.LogQuery, k lokidata.LineKinds, dir logs.Direction) {
	t.Helper()
	tn := (&tenant.Resolver{}).Map(kindsTenant(k))
	narrowed := *pushed
	narrowed.Narrow(k)
	req := logs.Request{Start: base.UnixNano(), End: base.Add(time.Hour).UnixNano(), Limit: 5000, Direction: dir, Query: &narrowed}
	a, _, err := logs.Walk(context.Background(), c, tn, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Query = local
	b, _, err := logs.Walk(context.Background(), c, tn, req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Streams, b.Streams) {
		t.Errorf("%s narrowed for kinds %b (%v): answers differ: %d streams narrowed, %d without; %s", q, k,
			logsql.Query{Filter: narrowed.Pushdown}, len(a.Streams), len(b.Streams), firstDifference(a.Streams, b.Streams))
	}
}

// compareMetricWithoutConditions runs a sum over a range aggregation with
// the plan's conditions and with only the stream selector pushed down.
func compareMetricWithoutConditions(t *testing.T, c *backend.Client, tn tenant.ID, query string) {
	t.Helper()
	e, err := logql.ParseExpr(query)
	if err != nil {
		t.Fatal(err)
	}
	m, err := plan.CompileMetric(frontend.Shard(e.(logql.SampleExpr)), nil)
	if err != nil {
		t.Fatal(err)
	}
	va, ok := plan.Unmarked(m).(*plan.VectorAgg)
	if !ok {
		t.Fatalf("%s: %T", query, m)
	}
	ra := va.Inner.(*plan.RangeAgg)
	if len(ra.Log.Pushdown.(logsql.And)) < 2 {
		t.Fatalf("%s: no condition pushed down", query)
	}
	localLog := *ra.Log
	localLog.Pushdown = logsql.And{plan.StreamFilter(ra.Log.Selector, nil)}
	localRange := *ra
	localRange.Log = &localLog
	local := *va
	local.Inner = &localRange
	req := metric.Request{Start: base.Add(10 * time.Minute).UnixNano(), End: base.Add(time.Hour).UnixNano(), Step: int64(time.Minute)}
	req.Query = va
	a, err := metric.Run(context.Background(), c, tn, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Query = &local
	b, err := metric.Run(context.Background(), c, tn, req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Series, b.Series) || len(b.Series) == 0 {
		t.Errorf("%s: %d series with the conditions, %d without (or none)", query, len(a.Series), len(b.Series))
	}
}

// generatedStreams spreads n lines over streams with and without a level
// stream label, some entries carrying level or status as metadata.
func generatedStreams(r *rand.Rand, n int) []map[string]any {
	labelSets := []map[string]string{{"app": "nc"}, {"app": "nc", "level": "error"}, {"app": "nc", "level": "info"}, {"app": "nc", "status": "503"}}
	values := make([][]any, len(labelSets))
	for i := 0; i < n; i++ {
		ts := strconv.FormatInt(base.Add(time.Duration(r.Int64N(int64(time.Hour)))).UnixNano(), 10)
		v := []any{ts, generatedLine(r)}
		switch r.IntN(6) {
		case 0:
			v = append(v, map[string]string{"level": pick(r, "error", "info")})
		case 1:
			v = append(v, map[string]string{"status": pick(r, "500", "200")})
		}
		k := r.IntN(len(labelSets))
		values[k] = append(values[k], v)
	}
	var out []map[string]any
	for i, ls := range labelSets {
		out = append(out, map[string]any{"stream": ls, "values": values[i]})
	}
	return out
}

func generatedLine(r *rand.Rand) string {
	level := pick(r, "error", "info", "warn", "wärn", "ERROR", "err", "errors")
	status := pick(r, "500", "5e2", "500.0", "200", `"500"`, "-0", "0x1F4", "200.5", "1E2", `"200"`, "00200", `"abc"`, `""`, "true", "null",
		`{"code":500}`, "9007199254740993", `" 200"`, "1e400", "-1")
	switch r.IntN(20) {
	case 14:
		return fmt.Sprintf(`{"status":%s,"status":%s}`, status, pick(r, "200", "503"))
	case 15:
		return fmt.Sprintf(`{"status ":%s,"status":%s,"code":%d}`, status, pick(r, "200", "503"), r.IntN(3))
	case 16:
		return fmt.Sprintf(`{"st\u0061tus":%s,"status":%s}`, status, pick(r, "200", "503"))
	case 17:
		return fmt.Sprintf(`{"a":{"status":%s},"code":%s}`, status, status)
	case 18:
		return fmt.Sprintf(`{"msg":"status","status":%s}`, status)
	case 19:
		return fmt.Sprintf(`{"status":%s,"code":%s,"level":%q}`, status, pick(r, "0", "1", "2.5"), level)
	case 0:
		return fmt.Sprintf(`{"level":%q,"status":%s,"msg":"a b"}`, level, status)
	case 1:
		return fmt.Sprintf(`{"level":"info","level":%q,"status":%s}`, level, status)
	case 2:
		return fmt.Sprintf(`{"a":{"level":%q},"msg":"a b"}`, level)
	case 3:
		return `{"level":"err\u006fr","status":500}`
	case 4:
		return `{"level":"erro\\r","msg":"a b"}`
	case 5:
		return fmt.Sprintf(`{"level":%q,"status":%s`, level, status) // unterminated
	case 6:
		return fmt.Sprintf(`{"status":%s, "level": }`, status)
	case 7:
		return fmt.Sprintf(`level=%s status=%s msg="a b"`, level, status)
	case 8:
		return fmt.Sprintf(`level=%q status=%s`, level, status)
	case 9:
		return `level="err\"or" msg="x"`
	case 10:
		return fmt.Sprintf(`level=info level=%s`, level)
	case 11:
		return fmt.Sprintf(`ts=1 level=%s`, level)
	case 12:
		return fmt.Sprintf(`plain text mentioning %s and %s`, level, status)
	case 13:
		switch r.IntN(4) {
		case 0:
			return fmt.Sprintf(`{"msg":%q}`, pick(r, "a b", "a\uFFFDb", "a\tb", "ab", "a  b"))
		case 1:
			return `{"msg":"a\ufffdb","level":"error"}`
		case 2:
			return fmt.Sprintf(`msg=%q level=error`, pick(r, "a b", "a\uFFFDb", "a b c"))
		}
		return fmt.Sprintf("%serror%s code %sa b%s", pick(r, "", "x", "_", "é", "-", " ", "ä", "9", "\\"),
			pick(r, "", "s", "_", "é", ".", "ü", "\\"), pick(r, "", "é", "(", "z"), pick(r, "", "ß", ")", "1"))
	}
	return fmt.Sprintf(`{"level":%q,"msg":"level=%s x"}`, level, level)
}

func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

func firstDifference(a, b []lokidata.Stream) string {
	seen := map[string]bool{}
	for _, s := range a {
		for _, e := range s.Entries {
			seen[s.Labels.String()+e.Line] = true
		}
	}
	for _, s := range b {
		for _, e := range s.Entries {
			if !seen[s.Labels.String()+e.Line] {
				return fmt.Sprintf("only without: %s %q", s.Labels, e.Line)
			}
		}
	}
	return "same entries, different order or metadata"
}
