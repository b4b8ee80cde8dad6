package integration

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/vloki/vloki/internal/testing/parity"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// legacyAt is a push timestamp, s seconds and ns nanoseconds after the
// dataset's base (Anchor + 1h).
func legacyAt(s, ns int) string {
	return fmt.Sprint(parity.Anchor.Add(time.Hour + time.Duration(s)*time.Second + time.Duration(ns)).UnixNano())
}

// legacyPush is a JSON push body: one stream of [ts, line(, metadata)]
// values per label set.
func legacyPush(streams ...map[string]any) string {
	b, err := json.Marshal(map[string]any{"streams": streams})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func legacyStream(labels map[string]string, values ...[]any) map[string]any {
	return map[string]any{"stream": labels, "values": values}
}

// legacyPushes hold lines with characters the two JSON encoders write
// differently (<, &, \b, \f, control characters, U+2028), a label value
// needing Go quoting inside the labels string, structured metadata, a
// logfmt line and nanosecond timestamps.
func legacyPushes() []string {
	return []string{legacyPush(
		legacyStream(map[string]string{"app": "web", "env": "prod"},
			[]any{legacyAt(0, 0), "GET /index 200"},
			[]any{legacyAt(10, 5), `GET /login 500 <err> & "q"`},
			[]any{legacyAt(20, 0), "level=info msg=hello user=bob", map[string]string{"trace_id": "abc"}},
			[]any{legacyAt(30, 0), "ctl \b\f\x1b\t tab é \u2028 end"}),
		legacyStream(map[string]string{"app": "db", "env": "prod"},
			[]any{legacyAt(5, 0), "query ok"},
			[]any{legacyAt(15, 123456), "query slow duration=3s"}),
		legacyStream(map[string]string{"app": "web", "env": "dev", "team": `a&b<"c">\é`},
			[]any{legacyAt(7, 0), "GET /debug 200"}),
	)}
}

// legacyQueries are the legacy requests compared; the range covers the
// dataset ("@59m" to "@1h2m" from Anchor), all of it on one UTC day, so
// label answers do not depend on where Loki's index holds the data.
func legacyQueries() []parity.Case {
	span := func(kv ...string) map[string]string {
		m := map[string]string{"start": "@59m", "end": "@1h2m"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
				continue
			}
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	categorize := map[string]string{"X-Loki-Response-Encoding-Flags": "categorize-labels"}
	const query, label, values, series = "/api/prom/query", "/api/prom/label", "/api/prom/label/%s/values", "/api/prom/series"
	return []parity.Case{
		// An end before the start first: Loki answers it so while its
		// results cache holds nothing under the request's key (later, 500
		// "merging responses requires at least one response").
		{ID: "labels_end_before_start", Endpoint: label, Params: span("start", "@1h2m", "end", "@59m")},
		{ID: "series_end_before_start", Endpoint: series, Params: span("start", "@1h2m", "end", "@59m")},
		{ID: "query_backward", Endpoint: query, Params: span("query", `{env="prod"}`)},
		{ID: "query_forward_limit", Endpoint: query, Params: span("query", `{env="prod"}`, "direction", "forward", "limit", "2")},
		{ID: "query_backward_limit", Endpoint: query, Params: span("query", `{app="web"}`, "limit", "3")},
		{ID: "query_escapes", Endpoint: query, Params: span("query", `{app="web"} |~ "<|ctl"`)},
		{ID: "query_quoted_label", Endpoint: query, Params: span("query", `{team=~".+"}`)},
		{ID: "query_logfmt", Endpoint: query, Params: span("query", `{app="web"} | logfmt`)},
		{ID: "query_logfmt_categorize", Endpoint: query, Params: span("query", `{app="web"} | logfmt`), Headers: categorize},
		{ID: "query_rfc3339_since", Endpoint: query, Params: span("query", `{app="db"}`, "start", "", "end", "@rfc:1h1m", "since", "2m")},
		{ID: "query_interval", Endpoint: query, Params: span("query", `{app="web"}`, "direction", "forward", "interval", "10s")},
		{ID: "query_empty", Endpoint: query, Params: span("query", `{app="none"}`)},
		{ID: "query_no_range", Endpoint: query, Params: map[string]string{"query": `{app="web"}`}},
		{ID: "query_regexp", Endpoint: query, Params: span("query", `{app="web"}`, "regexp", "GET /(index|debug)")},
		{ID: "query_regexp_after_filter", Endpoint: query, Params: span("query", `{app="web"} |= "GET"`, "regexp", "index")},
		{ID: "query_regexp_after_stages", Endpoint: query, Params: span("query", `{app="web"} | logfmt | line_format "{{.msg}}"`, "regexp", "hel+o")},
		{ID: "query_regexp_invalid", Endpoint: query, Params: span("query", `{app="web"}`, "regexp", "(")},
		{ID: "query_regexp_metric", Endpoint: query, Params: span("query", `count_over_time({app=""}[1m])`, "regexp", "x")},
		{ID: "query_regexp_empty_matcher", Endpoint: query, Params: span("query", `{app=""}`, "regexp", "x")},
		{ID: "query_regexp_bad_query", Endpoint: query, Params: span("query", `{app="web"`, "regexp", "x")},
		{ID: "query_metric", Endpoint: query, Params: span("query", `count_over_time({app="web"}[1m])`)},
		{ID: "query_metric_vector", Endpoint: query, Params: span("query", `sum by (app) (rate({env="prod"}[1m]))`, "limit", "100000")},
		{ID: "query_bad", Endpoint: query, Params: span("query", `{app="web"`)},
		{ID: "query_empty_matcher", Endpoint: query, Params: span("query", `{app=""}`)},
		{ID: "query_missing_query", Endpoint: query, Params: span()},
		{ID: "query_no_params", Endpoint: query, Params: map[string]string{}},
		{ID: "query_limit_zero", Endpoint: query, Params: span("query", `{app="web"}`, "limit", "0")},
		{ID: "query_limit_text", Endpoint: query, Params: span("query", `{app="web"}`, "limit", "ten")},
		{ID: "query_limit_over_max", Endpoint: query, Params: span("query", `{app="web"}`, "limit", "100000")},
		{ID: "query_direction_bad", Endpoint: query, Params: span("query", `{app="web"}`, "direction", "sideways")},
		{ID: "query_end_before_start", Endpoint: query, Params: span("query", `{app="web"}`, "start", "@1h2m", "end", "@59m")},
		{ID: "query_step_zero", Endpoint: query, Params: span("query", `{app="web"}`, "step", "0")},
		{ID: "labels", Endpoint: label, Params: span()},
		{ID: "labels_seconds", Endpoint: label, Params: span("start", "@s:59m", "end", "@s:1h2m")},
		{ID: "labels_query", Endpoint: label, Params: span("query", `{team=~".+"}`)},
		{ID: "labels_query_none", Endpoint: label, Params: span("query", `{app="none"}`)},
		{ID: "labels_bad_query", Endpoint: label, Params: span("query", `{app="web"`)},
		{ID: "labels_bad_start", Endpoint: label, Params: span("start", "yesterday")},
		{ID: "label_values_answer_names", Endpoint: fmt.Sprintf(values, "app"), Params: span()},
		{ID: "label_values_query", Endpoint: fmt.Sprintf(values, "env"), Params: span("query", `{app="db"}`)},
		{ID: "label_values_query_none", Endpoint: fmt.Sprintf(values, "app"), Params: span("query", `{app="none"}`)},
		{ID: "label_values_bad_query", Endpoint: fmt.Sprintf(values, "app"), Params: span("query", `{app=~"(" }`)},
		{ID: "series_match", Endpoint: series, Params: span("match[]", `{env="prod"}`)},
		{ID: "series_match_plain", Endpoint: series, Params: span("match", `{app="web"}`)},
		{ID: "series_two_matches", Endpoint: series, Params: span("match[]", "{app=\"db\"}\n{team=~\".+\"}")},
		{ID: "series_all", Endpoint: series, Params: span()},
		{ID: "series_bad_match", Endpoint: series, Params: span("match[]", `{env="prod"`)},
		{ID: "series_pipeline", Endpoint: series, Params: span("match[]", `{env="prod"} |= "x"`)},
		{ID: "not_found_labels", Endpoint: "/api/prom/labels", Params: span()},
		{ID: "not_found_label_name", Endpoint: "/api/prom/label/app", Params: span()},
	}
}

// legacyTailCase is one /api/prom/tail: the history message, then the
// message carrying a line pushed while it is open. Loki refuses a tail
// starting beyond max_query_length ago, so tails read lines stamped from
// a base a few minutes before the run (legacyTailBase); the messages are
// compared whole, Loki's timestamps moved by the difference of the bases.
type legacyTailCase struct {
	id      string
	query   string
	limit   string
	regexp  string // Loki reads it, then tails the query without it
	headers map[string]string
	live    func(base time.Time) string // the push made once the history arrived
}

// legacyTailBase is the tails' base: whole seconds, ten minutes ago.
func legacyTailBase() time.Time { return time.Now().Add(-10 * time.Minute).Truncate(time.Second) }

func tailAt(base time.Time, s int) string {
	return fmt.Sprint(base.Add(time.Duration(s) * time.Second).UnixNano())
}

// legacyTailHistory is what the tails' histories read.
func legacyTailHistory(base time.Time) string {
	return legacyPush(legacyStream(map[string]string{"app": "tail"},
		[]any{tailAt(base, 0), "tail one"},
		[]any{tailAt(base, 10), `level=info msg="tail two"`},
		[]any{tailAt(base, 20), "tail three"}))
}

func legacyTails() []legacyTailCase {
	live := func(s int, line string, metadata ...string) func(time.Time) string {
		return func(base time.Time) string {
			v := []any{tailAt(base, s), line}
			if len(metadata) > 0 {
				v = append(v, map[string]string{metadata[0]: metadata[1]})
			}
			return legacyPush(legacyStream(map[string]string{"app": "tail"}, v))
		}
	}
	return []legacyTailCase{
		{id: "tail_plain", query: `{app="tail"}`, limit: "2", regexp: "three", live: live(30, `live <plain> & "quoted"`)},
		{id: "tail_logfmt", query: `{app="tail"} | logfmt`, limit: "3", live: live(40, `level=warn msg="live logfmt"`, "trace_id", "live")},
		{id: "tail_logfmt_categorize", query: `{app="tail"} | logfmt`, limit: "2", live: live(50, "level=debug msg=last", "trace_id", "last"),
			headers: map[string]string{"X-Loki-Response-Encoding-Flags": "categorize-labels"}},
	}
}

// legacyRecord is testdata/legacy_loki.json: what Loki answered.
type legacyRecord struct {
	Pushes  []int           `json:"pushes"`
	Answers []parity.Answer `json:"answers"`
	// TailBase is the tails' base (Unix ns) when Loki was recorded.
	TailBase int64               `json:"tail_base"`
	Tails    map[string][]string `json:"tails"`
}

// TestLegacyAPIMatchesLoki: Loki's legacy API (/api/prom/query, /label,
// /label/{name}/values, /series, /tail) answers as Loki v3.7.8 does —
// status, content type and body byte for byte, Loki's undetermined parts
// aside (normalizeLegacy) — on both backends (testdata/legacy_loki.json,
// recorded with make legacy-record).
func TestLegacyAPIMatchesLoki(t *testing.T) {
	golden := filepath.Join("testdata", "legacy_loki.json")
	if base := os.Getenv("LEGACY_RECORD_LOKI_URL"); base != "" {
		recordLegacy(t, base, golden)
		return
	}
	var rec legacyRecord
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	queries := legacyQueries()
	if len(rec.Answers) != len(queries) {
		t.Fatalf("%d answers recorded for %d requests: run make legacy-record", len(rec.Answers), len(queries))
	}
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tenant := fmt.Sprintf("legacy%d", time.Now().UnixNano())
			if got := sendPushes(t, tg.url, tenant, legacyPushes()); fmt.Sprint(got) != fmt.Sprint(rec.Pushes) {
				t.Fatalf("push statuses %v, Loki %v", got, rec.Pushes)
			}
			vltest.Flush(t, tg.vl)
			for i, a := range askAll(t, tg.url, tenant, queries) {
				compareLegacy(t, queries[i], rec.Answers[i], normalizeLegacy(queries[i], a))
			}
			push := func(body string) {
				sendPushes(t, tg.url, tenant, []string{body})
				vltest.Flush(t, tg.vl) // the next tail's history holds it
			}
			base := legacyTailBase()
			push(legacyTailHistory(base))
			shift := base.UnixNano() - rec.TailBase
			for _, c := range legacyTails() {
				got := runLegacyTail(t, tg.url, tenant, base, c, push)
				want := shiftTailTimes(t, rec.Tails[c.id], shift)
				if !slices.Equal(got, want) {
					t.Errorf("%s: messages\n%q\nLoki (timestamps moved)\n%q", c.id, got, want)
				}
			}
		})
	}
}

// recordLegacy sends the dataset to a fresh Loki, asks every request and
// runs every tail, and writes the golden file.
func recordLegacy(t *testing.T, base, golden string) {
	rec := legacyRecord{Pushes: sendPushes(t, base, "", legacyPushes()), Tails: map[string][]string{}}
	time.Sleep(2 * time.Second) // Loki's ingesters answer at once; a margin anyway
	queries := legacyQueries()
	for i, a := range askAll(t, base, "", queries) {
		rec.Answers = append(rec.Answers, normalizeLegacy(queries[i], a))
	}
	push := func(body string) { sendPushes(t, base, "", []string{body}) }
	tailBase := legacyTailBase()
	rec.TailBase = tailBase.UnixNano()
	push(legacyTailHistory(tailBase))
	for _, c := range legacyTails() {
		rec.Tails[c.id] = runLegacyTail(t, base, "", tailBase, c, push)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func compareLegacy(t *testing.T, c parity.Case, want, got parity.Answer) {
	t.Helper()
	if got.Status != want.Status || got.ContentType != want.ContentType || got.Body != want.Body {
		t.Errorf("%s: %d %q %q\nLoki %d %q %q", c.ID, got.Status, got.ContentType, got.Body, want.Status, want.ContentType, want.Body)
	}
}

// normalizeLegacy takes out of an answer what Loki leaves undetermined,
// applied alike to Loki's recorded answer and vloki's: a query answer's
// stats (timings) and their place (Loki encodes a map of streams and
// stats, so they come in either order); the order of a series answer's
// data (parity.Compare's rule for series). An answer of another shape is
// left whole, so a difference in shape still shows.
func normalizeLegacy(c parity.Case, a parity.Answer) parity.Answer {
	if a.Status != http.StatusOK {
		return a
	}
	switch c.Endpoint {
	case "/api/prom/query":
		a.Body = withoutLegacyStats(a.Body)
	case "/api/prom/series":
		a.Body = sortedSeries(a.Body)
	}
	return a
}

func withoutLegacyStats(body string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &m) != nil || len(m) != 2 || m["streams"] == nil || m["stats"] == nil {
		return body
	}
	streams, stats := string(m["streams"]), string(m["stats"])
	if body != `{"streams":`+streams+`,"stats":`+stats+"}\n" && body != `{"stats":`+stats+`,"streams":`+streams+"}\n" {
		return body
	}
	return `{"streams":` + streams + `,"stats":{}}` + "\n"
}

func sortedSeries(body string) string {
	var v struct {
		Status json.RawMessage   `json:"status"`
		Data   []json.RawMessage `json:"data"`
	}
	if json.Unmarshal([]byte(body), &v) != nil {
		return body
	}
	items := make([]string, len(v.Data))
	for i, d := range v.Data {
		items[i] = string(d)
	}
	rebuild := func() string {
		return `{"status":` + string(v.Status) + `,"data":[` + strings.Join(items, ",") + "]}\n"
	}
	if rebuild() != body {
		return body
	}
	for i, item := range items {
		items[i] = seriesInOrder(item)
	}
	slices.Sort(items)
	return rebuild()
}

// seriesInOrder writes a series' label set with its names in order (Loki
// builds it from a map); an object it cannot write back as it came is
// left whole.
func seriesInOrder(object string) string {
	var labels map[string]json.RawMessage
	if json.Unmarshal([]byte(object), &labels) != nil {
		return object
	}
	names := slices.Sorted(maps.Keys(labels))
	pairs := make([]string, len(names))
	for i, n := range names {
		name, _ := json.Marshal(n)
		pairs[i] = string(name) + ":" + string(labels[n])
	}
	if len(object) != len(strings.Join(pairs, ","))+2 {
		return object
	}
	return "{" + strings.Join(pairs, ",") + "}"
}

// runLegacyTail opens the tail from a minute before base, reads the
// history message, pushes the live line and reads the message carrying it.
func runLegacyTail(t *testing.T, url, tenant string, base time.Time, c legacyTailCase, push func(string)) []string {
	t.Helper()
	q := neturl.Values{"query": {c.query}, "limit": {c.limit}, "start": {fmt.Sprint(base.Add(-time.Minute).UnixNano())}}
	if c.regexp != "" {
		q.Set("regexp", c.regexp)
	}
	h := http.Header{}
	if tenant != "" {
		h.Set("X-Scope-OrgID", tenant)
	}
	for k, v := range c.headers {
		h.Set(k, v)
	}
	conn, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(url, "http")+"/api/prom/tail?"+q.Encode(), h)
	if err != nil {
		t.Fatalf("%s: dial: %v (%v)", c.id, err, resp)
	}
	defer conn.Close()
	history := readLegacyTail(t, conn)
	push(c.live(base))
	return []string{history, readLegacyTail(t, conn)}
}

// tailTimes are the timestamps of a legacy tail message.
var tailTimes = regexp.MustCompile(`"ts":"([^"]+)"`)

// shiftTailTimes moves every timestamp of the messages by shift.
func shiftTailTimes(t *testing.T, messages []string, shift int64) []string {
	t.Helper()
	out := make([]string, len(messages))
	for i, m := range messages {
		out[i] = tailTimes.ReplaceAllStringFunc(m, func(field string) string {
			ts, err := time.Parse(time.RFC3339Nano, tailTimes.FindStringSubmatch(field)[1])
			if err != nil {
				t.Fatal(err)
			}
			return `"ts":"` + ts.Add(time.Duration(shift)).UTC().Format(time.RFC3339Nano) + `"`
		})
	}
	return out
}

// readLegacyTail waits for the next message, at most 15 s.
func readLegacyTail(t *testing.T, conn *websocket.Conn) string {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, b, err := conn.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
