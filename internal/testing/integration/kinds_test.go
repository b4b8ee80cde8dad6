package integration

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/parity"
)

// kindsPushes hold lines of every kind plan/narrow.go narrows for, each
// kind in its own stream: plain ASCII, JSON and logfmt escapes, and
// bytes outside ASCII (words beside Unicode letters, U+FFFD, which
// Loki's parsers read as a space).
func kindsPushes() []string {
	at := anchoredAt(5 * time.Hour)
	lines := map[string][]string{
		"plain": {`{"msg":"a b","trace_id":"8472910384","status":500}`, `{"msg":"ab","trace_id":"18472910384"}`,
			`x error y`, `errors x`, `x_error`, `error9 x`, `(error) x`, `msg="a b" trace_id=8472910384`,
			`{"trace":{"id":"8472910384"},"msg":"nested"}`, `{"trace_id":8472910384}`, `{"trace_id":"8472910384x"}`},
		"esc": {`{"msg":"a\u0020b","trace_id":"\u0038472910384"}`, `{"msg":"a\tb"}`, `{"msg":"a\ufffdb"}`,
			`x\error y`, `msg="a\"b" trace_id=8472910384`, `{"trace_id":"8472910384\\"}`},
		"uni": {`x éerror y`, `errorü x`, `{"msg":"a` + "\uFFFD" + `b"}`, `msg="a` + "\uFFFD" + `b"`, `ß error ß`,
			`{"trace_id":"8472910384","msg":"é"}`},
	}
	var streams []string
	i := 0
	for _, kind := range []string{"plain", "esc", "uni"} {
		var values []string
		for _, l := range lines[kind] {
			b, _ := json.Marshal(l)
			values = append(values, fmt.Sprintf(`[%q,%s]`, at(i), b))
			i++
		}
		streams = append(streams, fmt.Sprintf(`{"stream":{"app":"kinds","kind":%q},"values":[%s]}`, kind, strings.Join(values, ",")))
	}
	return []string{`{"streams":[` + strings.Join(streams, ",") + `]}`}
}

func kindsQueries() []parity.Case {
	var out []parity.Case
	sels := []string{`{app="kinds"}`, `{app="kinds", kind="plain"}`, `{app="kinds", kind=~"plain|esc"}`, `{app="kinds", kind=~"plain|uni"}`}
	pipes := []string{`|~ "\\berror\\b"`, `!~ "\\berror\\b"`, `|~ "\\ba b\\b"`, `| json | msg="a b"`, `| logfmt | msg="a b"`,
		`| json | trace_id="8472910384"`, `| json | trace_id="8472910384" or msg="nested"`, `| json | status="500"`,
		`|= "8472910384"`, `| logfmt | trace_id="8472910384"`,
		// regexps that require a literal they do not start with (plan/literal.go)
		`|~ "\\Berror"`, `!~ "[ (]error\\b"`, `|~ "\\w?rror[ 9]"`,
		// and under (?i), as Grafana's case-insensitive line filter asks
		`|~ "(?i)ERROR"`, `!~ "(?i)\\bERRor\\b"`, `|~ "(?i)rROR[ 9]"`,
		// alternations: a literal of each branch (plan/literal.go's alternateLiteral)
		`|~ "(?i)\\bERRor|NESTED"`, `!~ "(?i)(rror9|TRACE)"`, `|~ "[ (](error|a b)"`}
	for i, sel := range sels {
		for j, p := range pipes {
			out = append(out, parity.Case{ID: fmt.Sprintf("kinds_%d_%d", i, j), Endpoint: "/loki/api/v1/query_range",
				Params: map[string]string{"query": sel + " " + p, "start": "@5h", "end": "@6h", "limit": "100", "direction": "forward"}})
		}
		out = append(out, parity.Case{ID: fmt.Sprintf("kinds_%d_count", i), Endpoint: "/loki/api/v1/query",
			Params: map[string]string{"query": `sum by (kind) (count_over_time(` + sel + ` |~ "\\berror\\b" [1h]))`, "time": "@6h"}},
			parity.Case{ID: fmt.Sprintf("kinds_%d_json_count", i), Endpoint: "/loki/api/v1/query",
				Params: map[string]string{"query": `sum by (kind) (count_over_time(` + sel + ` | json | trace_id="8472910384" [1h]))`, "time": "@6h"}})
	}
	return out
}

// TestLineKindsMatchLoki: filters whose pushdown the stream index narrows
// (a word between \b, a parsed value after json) answer as Loki does over
// streams holding lines of every kind (testdata/kinds_loki.json, recorded
// with make kinds-record). As the sole writer, vloki's stream index
// narrows the plans wherever the streams a query reads hold only lines of
// kinds that allow it; shared with other agents, every plan keeps its
// wide form, which must answer alike on every kind.
func TestLineKindsMatchLoki(t *testing.T) {
	for _, sole := range []string{"on", "off"} {
		t.Run("sole-writer-"+sole, func(t *testing.T) {
			record := "KINDS_RECORD_LOKI_URL"
			if sole == "off" {
				record = "" // recorded once, by the first
			}
			pushesMatchLoki(t, "kinds_loki.json", record, kindsPushes(), kindsQueries(),
				func(c *config.Config) { c.Backend.SoleWriter = sole })
		})
	}
}
