package integration

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/vltest"
)

func TestPostFormQueryAndCategorizedMetadata(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			body := map[string]any{"streams": []any{map[string]any{
				"stream": map[string]string{"app": "meta", "level": "warn"},
				"values": [][]any{{ns(base.Add(1)), "with metadata", map[string]string{"trace_id": "abc"}}, {ns(base.Add(2)), "without"}},
			}}}
			tg.pushJSON(t, "md", body)
			form := rangeParams(`{app="meta"}`, base, base.Add(time.Second), 10, "forward")
			r := tg.do(t, http.MethodPost, "/loki/api/v1/query_range", "md", []byte(form.Encode()),
				map[string]string{"Content-Type": "application/x-www-form-urlencoded", "X-Loki-Response-Encoding-Flags": "categorize-labels"})
			res := decodeStreams(t, r)
			if len(res.Data.EncodingFlags) != 1 || res.Data.EncodingFlags[0] != "categorize-labels" || len(res.Data.Result) != 1 {
				t.Fatalf("got %s", r.body)
			}
			s := res.Data.Result[0]
			if len(s.Stream) != 3 || s.Stream["service_name"] != "meta" {
				t.Errorf("stream labels %v", s.Stream)
			}
			md := s.Values[0][2].(map[string]any)["structuredMetadata"].(map[string]any)
			if md["trace_id"] != "abc" || md["detected_level"] != "warn" {
				t.Errorf("metadata %v", md)
			}
			// Without the flag, metadata joins the stream labels and splits streams.
			plain := decodeStreams(t, tg.get(t, "/loki/api/v1/query_range", "md", form, nil))
			if len(plain.Data.Result) != 2 || plain.Data.EncodingFlags != nil {
				t.Fatalf("plain answer: %+v", plain.Data)
			}
			if plain.Data.Result[0].Stream["trace_id"] != "abc" || len(plain.Data.Result[0].Values[0]) != 2 {
				t.Errorf("plain first stream %+v", plain.Data.Result[0])
			}
		})
	}
}

func TestIntervalSkipsEntries(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			var entries []entry
			for i := 0; i < 10; i++ {
				entries = append(entries, entry{ns(base.Add(time.Duration(i) * time.Second)), "e" + string(rune('0'+i))})
			}
			tg.pushJSON(t, "iv", jsonPush(map[string]string{"app": "iv"}, entries...))
			p := rangeParams(`{app="iv"}`, base, base.Add(time.Minute), 100, "forward")
			p.Set("interval", "3s")
			if got := summarize(decodeStreams(t, tg.get(t, "/loki/api/v1/query_range", "iv", p, nil))); got != "iv:e0,e3,e6,e9" {
				t.Errorf("forward interval: %q", got)
			}
			p.Set("direction", "backward")
			if got := summarize(decodeStreams(t, tg.get(t, "/loki/api/v1/query_range", "iv", p, nil))); got != "iv:e9,e6,e3,e0" {
				t.Errorf("backward interval: %q", got)
			}
		})
	}
}

func TestLabelsValuesSeries(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tg.pushJSON(t, "meta", jsonPush(map[string]string{"app": "web", "env": "prod"}, entry{ns(base), "a"}))
			tg.pushJSON(t, "meta", jsonPush(map[string]string{"app": "db", "region": "eu"}, entry{ns(base), "b"}))
			rng := url.Values{"start": {ns(base.Add(-time.Minute))}, "end": {ns(base.Add(time.Minute))}}
			check := func(path string, params url.Values, want string) {
				t.Helper()
				r := tg.get(t, path, "meta", params, nil)
				if r.status != 200 || strings.TrimSpace(string(r.body)) != want {
					t.Errorf("%s %v: got %d %s\nwant %s", path, params, r.status, r.body, want)
				}
			}
			check("/loki/api/v1/labels", rng, `{"status":"success","data":["app","env","region","service_name"]}`)
			check("/loki/api/v1/label", rng, `{"status":"success","data":["app","env","region","service_name"]}`)
			check("/loki/api/v1/label/app/values", rng, `{"status":"success","data":["db","web"]}`)
			withQuery := url.Values{"start": rng["start"], "end": rng["end"], "query": {`{env="prod"}`}}
			check("/loki/api/v1/label/app/values", withQuery, `{"status":"success","data":["web"]}`)
			check("/loki/api/v1/label/nope/values", rng, `{"status":"success"}`)
			series := url.Values{"start": rng["start"], "end": rng["end"], "match[]": {`{app=~"web|db"}`}}
			check("/loki/api/v1/series", series,
				`{"status":"success","data":[{"app":"db","region":"eu","service_name":"db"},{"app":"web","env":"prod","service_name":"web"}]}`)
			// Loki's index answers names and values for the whole UTC day.
			sameDay := url.Values{"start": {ns(base.Add(time.Hour))}, "end": {ns(base.Add(2 * time.Hour))}}
			check("/loki/api/v1/labels", sameDay, `{"status":"success","data":["app","env","region","service_name"]}`)
			check("/loki/api/v1/label/app/values", sameDay, `{"status":"success","data":["db","web"]}`)
			series = url.Values{"start": sameDay["start"], "end": sameDay["end"], "match[]": {`{app=~"web|db"}`}}
			check("/loki/api/v1/series", series, `{"status":"success","data":[]}`)
			nextDay := url.Values{"start": {ns(base.Add(24 * time.Hour))}, "end": {ns(base.Add(25 * time.Hour))}}
			check("/loki/api/v1/labels", nextDay, `{"status":"success"}`)
		})
	}
}

func TestTimeoutAnswers504(t *testing.T) {
	for _, tg := range targetsWithTimeout(t, time.Nanosecond) {
		t.Run(tg.name, func(t *testing.T) {
			r := tg.get(t, "/loki/api/v1/query_range", "to", rangeParams(`{app="x"}`, base, base.Add(time.Hour), 10, "forward"), nil)
			want := "request timed out, decrease the duration of the request or add more label matchers (prefer exact match over regex match) to reduce the amount of data processed"
			if r.status != http.StatusGatewayTimeout || string(r.body) != want {
				t.Fatalf("got %d %q", r.status, r.body)
			}
		})
	}
}

// TestMetadataReadsTimeOutAsLoki: Loki's querier bounds label, series,
// index stats, volume and detected-labels reads by the query timeout, and
// answers an expired one as a timed-out query. (The embedded engine
// answers label names, values and streams without looking at the
// context: nothing to time out there.)
func TestMetadataReadsTimeOutAsLoki(t *testing.T) {
	want := "request timed out, decrease the duration of the request or add more label matchers (prefer exact match over regex match) to reduce the amount of data processed"
	span := url.Values{"start": {ns(base)}, "end": {ns(base.Add(time.Hour))}}
	withQuery := func(q string) url.Values {
		p := url.Values{"query": {q}}
		for k, v := range span {
			p[k] = v
		}
		return p
	}
	reads := map[string]url.Values{
		"/loki/api/v1/labels":                  span,
		"/loki/api/v1/label/app/values":        span,
		"/loki/api/v1/series":                  withQuery(`{app="x"}`),
		"/loki/api/v1/index/stats":             withQuery(`{app="x"}`),
		"/loki/api/v1/index/volume":            withQuery(`{app="x"}`),
		"/loki/api/v1/index/volume_range":      withQuery(`{app="x"}`),
		"/loki/api/v1/detected_labels":         withQuery(`{app="x"}`),
		"/loki/api/v1/detected_fields":         withQuery(`{app="x"}`),
		"/loki/api/v1/detected_field/a/values": withQuery(`{app="x"}`),
	}
	for _, tg := range targetsWithTimeout(t, time.Nanosecond) {
		t.Run(tg.name, func(t *testing.T) {
			for path, params := range reads {
				if !vltest.IsExternal(tg.name) && !strings.Contains(path, "index") && !strings.Contains(path, "detected_field") {
					continue
				}
				r := tg.get(t, path, "to", params, nil)
				if r.status != http.StatusGatewayTimeout || string(r.body) != want {
					t.Errorf("%s: got %d %q", path, r.status, r.body)
				}
			}
		})
	}
}

func TestBuildInfoAndReady(t *testing.T) {
	tg := targets(t)[1]
	r := tg.get(t, "/loki/api/v1/status/buildinfo", "", nil, nil)
	var bi map[string]string
	if err := json.Unmarshal(r.body, &bi); err != nil || bi["version"] != "3.7.8" {
		t.Fatalf("buildinfo %d %s", r.status, r.body)
	}
	if r := tg.get(t, "/ready", "", nil, nil); r.status != 200 || string(r.body) != "ready\n" {
		t.Fatalf("ready %d %q", r.status, r.body)
	}
}

func TestVolume(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tg.pushJSON(t, "vol", jsonPush(map[string]string{"app": "big"}, entry{ns(base), "0123456789"}, entry{ns(base.Add(time.Second)), "0123456789"}))
			tg.pushJSON(t, "vol", jsonPush(map[string]string{"app": "small"}, entry{ns(base), "01234"}, entry{ns(base.Add(time.Second)), ""}))
			p := url.Values{"query": {`{app=~".+"}`}, "start": {ns(base)}, "end": {ns(base.Add(time.Minute))}}
			r := tg.get(t, "/loki/api/v1/index/volume", "vol", p, nil)
			typ, res := metricResult(t, r)
			want := `[{"metric":{"app":"big"},"value":[` + secs(base.Add(time.Minute)) + `,"20"]},{"metric":{"app":"small"},"value":[` + secs(base.Add(time.Minute)) + `,"5"]}]`
			if typ != "vector" || res != want {
				t.Fatalf("volume: %s %s\nwant %s", typ, res, want)
			}
			p.Set("aggregateBy", "nope")
			if r := tg.get(t, "/loki/api/v1/index/volume", "vol", p, nil); r.status != 400 || string(r.body) != "invalid aggregation option" {
				t.Fatalf("bad aggregateBy: %d %s", r.status, r.body)
			}
		})
	}
}

func TestIndexStats(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tg.pushJSON(t, "ist", jsonPush(map[string]string{"app": "a"}, entry{ns(base), "0123456789"}, entry{ns(base.Add(time.Second)), ""}))
			tg.pushJSON(t, "ist", jsonPush(map[string]string{"app": "b"}, entry{ns(base), "01234"}, entry{ns(base.Add(time.Minute)), "late"}))
			p := url.Values{"query": {`{app=~".+"}`}, "start": {ns(base)}, "end": {ns(base.Add(time.Minute))}}
			r := tg.get(t, "/loki/api/v1/index/stats", "ist", p, nil)
			// The entry at end is outside [start, end); the empty line counts
			// as an entry of 0 bytes.
			if want := `{"streams":2,"chunks":2,"bytes":15,"entries":3}` + "\n"; r.status != 200 || string(r.body) != want {
				t.Fatalf("index/stats: %d %s, want %s", r.status, r.body, want)
			}
			p.Set("query", `{app=~".*"}`)
			if r := tg.get(t, "/loki/api/v1/index/stats", "ist", p, nil); r.status != 400 {
				t.Fatalf("empty-compatible selector: %d %s", r.status, r.body)
			}
		})
	}
}

func TestDetectedLabels(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			for i, app := range []string{"web", "api", "db"} {
				tg.pushJSON(t, "dl", jsonPush(map[string]string{"app": app, "req": strconv.Itoa(100 + i), "pod": strconv.Itoa(i), "flag": strconv.Itoa(i % 2)}, entry{ns(base), "x"}))
			}
			p := url.Values{"query": {`{app=~".+"}`}, "start": {ns(base)}, "end": {ns(base.Add(time.Minute))}}
			r := tg.get(t, "/loki/api/v1/detected_labels", "dl", p, nil)
			// req holds only numbers: dropped; pod is kept (static); flag is
			// 0/1: kept; service_name comes from app.
			want := `{"detectedLabels":[{"label":"app","cardinality":3},{"label":"flag","cardinality":2},{"label":"pod","cardinality":3},{"label":"service_name","cardinality":3}]}` + "\n"
			if r.status != 200 || string(r.body) != want {
				t.Fatalf("detected_labels: %d %s\nwant %s", r.status, r.body, want)
			}
		})
	}
}

func TestDetectedFields(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tg.pushJSON(t, "df", jsonPush(map[string]string{"app": "shop"},
				entry{ns(base), `{"level":"info","took":"15ms","user":{"id":7},"app":"x"}`},
				entry{ns(base.Add(time.Second)), `{"level":"warn","took":"2s","size":"3KiB","user":{"id":8}}`}))
			tg.pushJSON(t, "df", jsonPush(map[string]string{"app": "shop", "pod": "p1"},
				entry{ns(base), `level=error status=500 size=1.5MB`}))
			p := url.Values{"query": {`{app="shop"}`}, "start": {ns(base)}, "end": {ns(base.Add(time.Minute))}}
			r := tg.get(t, "/loki/api/v1/detected_fields", "df", p, nil)
			want := `{"fields":[` +
				`{"label":"app_extracted","type":"string","cardinality":1,"parsers":["json"],"jsonPath":["app"]},` +
				`{"label":"detected_level","type":"string","cardinality":3,"parsers":null},` +
				`{"label":"level","type":"string","cardinality":3,"parsers":["logfmt","json"],"jsonPath":["level"]},` +
				`{"label":"size","type":"bytes","cardinality":2,"parsers":["logfmt","json"],"jsonPath":["size"]},` +
				`{"label":"status","type":"int","cardinality":1,"parsers":["logfmt"]},` +
				`{"label":"took","type":"duration","cardinality":2,"parsers":["json"],"jsonPath":["took"]},` +
				`{"label":"user_id","type":"int","cardinality":2,"parsers":["json"],"jsonPath":["user","id"]}` +
				`],"limit":1000}` + "\n"
			if r.status != 200 || string(r.body) != want {
				t.Fatalf("detected_fields: %d %s\nwant %s", r.status, r.body, want)
			}
			r = tg.get(t, "/loki/api/v1/detected_field/size/values", "df", p, nil)
			if want := `{"limit":1000,"values":["1.5MB","3.1kB"]}` + "\n"; r.status != 200 || string(r.body) != want {
				t.Fatalf("detected_field values: %d %s\nwant %s", r.status, r.body, want)
			}
		})
	}
}

// With -patterns.enabled=false vloki answers as Loki's default (pattern
// ingester off): valid requests get no patterns, and Drilldown is told.
func TestPatternsOffAnswerAsDefaultLoki(t *testing.T) {
	for _, tg := range targetsWith(t, func(c *config.Config) { c.Patterns.Enabled = false }) {
		t.Run(tg.name, func(t *testing.T) {
			p := url.Values{"query": {`{app="x"}`}, "start": {ns(base)}, "end": {ns(base.Add(time.Minute))}}
			if r := tg.get(t, "/loki/api/v1/patterns", "pt", p, nil); r.status != 200 || string(r.body) != `{"status":"success","data":[]}`+"\n" {
				t.Fatalf("patterns: %d %s", r.status, r.body)
			}
			p.Set("query", `{app=~".*"}`)
			if r := tg.get(t, "/loki/api/v1/patterns", "pt", p, nil); r.status != 400 {
				t.Fatalf("empty-compatible selector: %d %s", r.status, r.body)
			}
			r := tg.get(t, "/loki/api/v1/drilldown-limits", "pt", nil, nil)
			if !strings.Contains(string(r.body), `"pattern_ingester_enabled":false`) {
				t.Fatalf("drilldown-limits: %s", r.body)
			}
		})
	}
}

func TestDrilldownLimitsAndRules(t *testing.T) {
	tg := targets(t)[1]
	r := tg.get(t, "/loki/api/v1/drilldown-limits", "dd", nil, nil)
	var body struct {
		Limits                 map[string]any `json:"limits"`
		PatternIngesterEnabled bool           `json:"pattern_ingester_enabled"`
		Version                string         `json:"version"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || r.status != 200 {
		t.Fatalf("drilldown-limits: %d %s", r.status, r.body)
	}
	if body.Limits["max_entries_limit_per_query"] != float64(5000) || body.Version != "3.7.8" || !body.PatternIngesterEnabled {
		t.Fatalf("drilldown-limits: %s", r.body)
	}
	if r := tg.get(t, "/prometheus/api/v1/rules", "dd", nil, nil); r.status != 200 || !strings.Contains(string(r.body), `"groups":[]`) {
		t.Fatalf("rules: %d %s", r.status, r.body)
	}
	// The ruler API is on (Loki's enable_api): a tenant without rules.
	if r := tg.get(t, "/loki/api/v1/rules", "dd", nil, nil); r.status != 404 || string(r.body) != "no rule groups found\n" {
		t.Fatalf("ruler config API without rules: %d %s", r.status, r.body)
	}
}
