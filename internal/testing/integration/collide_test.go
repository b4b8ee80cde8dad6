package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/testing/parity"
)

// collidePushes carry structured metadata named like a stream label (Loki
// stores it as level_extracted), like keys the json and logfmt parsers
// extract (msg, user) and like their renamed keys, found by the second
// parity dataset's random queries.
func collidePushes() []string {
	at := anchoredAt(3 * time.Hour)
	var values []string
	for i := range 12 {
		line := fmt.Sprintf(`{"level":%q,"msg":"collide %d","user":"u%d","app":"inner"}`, []string{"info", "warn", "error"}[i%3], i, i%4)
		if i%2 == 1 {
			line = fmt.Sprintf(`level=%s msg="collide %d" user=u%d app=inner`, []string{"info", "warn", "error"}[i%3], i, i%4)
		}
		md := [][2]string{{"level", "debug"}, {"msg", "from metadata"}, {"app", "meta-app"}, {"user", "meta-user"}, {"level_extracted", "preset"}, {"", ""}}[i%6]
		if md[0] == "" {
			values = append(values, fmt.Sprintf(`[%q,%q]`, at(i), line))
			continue
		}
		values = append(values, fmt.Sprintf(`[%q,%q,{%q:%q}]`, at(i), line, md[0], md[1]))
	}
	return []string{`{"streams":[{"stream":{"app":"collide","level":"info"},"values":[` + strings.Join(values, ",") + `]}]}`}
}

func collideQueries() []parity.Case {
	var out []parity.Case
	for i, q := range []string{`{app="collide"}`, `{app="collide"} | json`, `{app="collide"} | logfmt`, `{app="collide"} | json | logfmt`,
		`{app="collide"} | json | level_extracted="info"`, `{app="collide"} | logfmt | msg=~"collide.*"`, `{app="collide"} | json | keep level_extracted, msg, user`} {
		for _, flags := range []string{"", "categorize-labels"} {
			c := parity.Case{ID: fmt.Sprintf("collide_%d_%s", i, flags), Endpoint: "/loki/api/v1/query_range",
				Params: map[string]string{"query": q, "start": "@3h", "end": "@4h", "limit": "100", "direction": "forward"}}
			if flags != "" {
				c.Headers = map[string]string{"X-Loki-Response-Encoding-Flags": flags}
			}
			out = append(out, c)
		}
	}
	out = append(out, parity.Case{ID: "collide_count_by", Endpoint: "/loki/api/v1/query",
		Params: map[string]string{"query": `sum by (level_extracted, msg) (count_over_time({app="collide"} | json [1h]))`, "time": "@4h"}})
	return out
}

// TestParsedLabelsReplaceMetadataMatchLoki: a parsed label replaces
// structured metadata of the same name, as Loki's labels builder does
// (testdata/collide_loki.json, recorded with make collide-record).
func TestParsedLabelsReplaceMetadataMatchLoki(t *testing.T) {
	pushesMatchLoki(t, "collide_loki.json", "COLLIDE_RECORD_LOKI_URL", collidePushes(), collideQueries(), nil)
}
