package integration

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

type metricAnswer struct {
	Status string `json:"status"`
	Data   struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// metricResult returns resultType and the result JSON with spaces removed.
func metricResult(t *testing.T, r response) (string, string) {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var a metricAnswer
	if err := json.Unmarshal(r.body, &a); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
	return a.Data.ResultType, string(a.Data.Result)
}

func secs(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

func TestHealthCheckQuery(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			r := tg.get(t, "/loki/api/v1/query", "hc", url.Values{"query": {"vector(1)+vector(1)"}, "time": {"4000000000"}, "direction": {"backward"}}, nil)
			typ, res := metricResult(t, r)
			if typ != "vector" || res != `[{"metric":{},"value":[4000000000,"2"]}]` {
				t.Fatalf("got %s %s", typ, res)
			}
			// Loki's frontend garbles an instant scalar's timestamp (ms read
			// as s, see metric.scalarTimestampMs); parity case instant_literal
			// recorded it.
			r = tg.get(t, "/loki/api/v1/query", "hc", url.Values{"query": {"1+1"}, "time": {"4"}}, nil)
			if typ, res := metricResult(t, r); typ != "scalar" || res != `[4000000,"2"]` {
				t.Fatalf("scalar: got %s %s", typ, res)
			}
		})
	}
}

func TestCountOverTimeAndAggregations(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			// app=a: entries at +0s, +10s, +20s, +60s; app=b: +30s with a level.
			tg.pushJSON(t, "m", jsonPush(map[string]string{"app": "a"},
				entry{ns(base), "x1"}, entry{ns(base.Add(10 * time.Second)), "x2 error"},
				entry{ns(base.Add(20 * time.Second)), "x3"}, entry{ns(base.Add(60 * time.Second)), "x4"}))
			tg.pushJSON(t, "m", jsonPush(map[string]string{"app": "b"}, entry{ns(base.Add(30 * time.Second)), "level=warn y"}))
			q := func(query string, step string) (string, string) {
				p := url.Values{"query": {query}, "start": {secs(base)}, "end": {secs(base.Add(time.Minute))}, "step": {step}}
				return metricResult(t, tg.get(t, "/loki/api/v1/query_range", "m", p, nil))
			}
			b := base.Unix()
			at := func(d int64) string { return strconv.FormatInt(b+d, 10) }
			// Windows are (t-30s, t]: at base only x1; at +30s x2,x3 (x1 at exactly t-30s is out).
			typ, res := q(`sum(count_over_time({app="a"}[30s]))`, "30")
			if want := `[{"metric":{},"values":[[` + at(0) + `,"1"],[` + at(30) + `,"2"],[` + at(60) + `,"1"]]}]`; typ != "matrix" || res != want {
				t.Errorf("sum count_over_time:\n got  %s\n want %s", res, want)
			}
			_, res = q(`count_over_time({app="a"} |= "error" [1m])`, "60")
			if want := `[{"metric":{"app":"a","detected_level":"error","service_name":"a"},"values":[[` + at(60) + `,"1"]]}]`; res != want {
				t.Errorf("count_over_time with filter:\n got  %s\n want %s", res, want)
			}
			_, res = q(`sum by (detected_level) (count_over_time({app=~"a|b"} | drop __error__ [1m]))`, "60")
			want := `[{"metric":{"detected_level":"error"},"values":[[` + at(60) + `,"1"]]},` +
				`{"metric":{"detected_level":"unknown"},"values":[[` + at(0) + `,"1"],[` + at(60) + `,"2"]]},` +
				`{"metric":{"detected_level":"warn"},"values":[[` + at(60) + `,"1"]]}]`
			if res != want {
				t.Errorf("log volume query:\n got  %s\n want %s", res, want)
			}
			_, res = q(`sum(rate({app="a"}[1m])) * 60 >= bool 3`, "60")
			if want := `[{"metric":{},"values":[[` + at(0) + `,"0"],[` + at(60) + `,"1"]]}]`; res != want {
				t.Errorf("rate comparison:\n got  %s\n want %s", res, want)
			}
			_, res = q(`sum by (app) (bytes_over_time({app=~"a|b"}[1m]))`, "60")
			if want := `[{"metric":{"app":"a"},"values":[[` + at(0) + `,"2"],[` + at(60) + `,"12"]]},{"metric":{"app":"b"},"values":[[` + at(60) + `,"12"]]}]`; res != want {
				t.Errorf("bytes_over_time:\n got  %s\n want %s", res, want)
			}
			r := tg.get(t, "/loki/api/v1/query", "m", url.Values{"query": {`sort_desc(sum by (app) (count_over_time({app=~"a|b"}[2m])))`}, "time": {at(60)}}, nil)
			if typ, res := metricResult(t, r); typ != "vector" || !strings.HasPrefix(res, `[{"metric":{"app":"a"},"value":[`+at(60)+`,"4"]}`) {
				t.Errorf("instant sort_desc: %s %s", typ, res)
			}
		})
	}
}

// TestZeroRange: a [0s] window holds nothing, so Loki v3.7.8 answers an
// empty result, instant and range alike (seen on Loki itself).
func TestZeroRange(t *testing.T) {
	for _, tg := range targets(t) {
		tg.pushJSON(t, "zr", jsonPush(map[string]string{"app": "zr"}, entry{ns(base.Add(time.Second)), "x"}))
		at := base.Add(time.Minute)
		for _, q := range []string{`count_over_time({app="zr"}[0s])`, `sum(rate({app="zr"}[0s]))`} {
			_, got := metricResult(t, tg.get(t, "/loki/api/v1/query", "zr", url.Values{"query": {q}, "time": {secs(at)}}, nil))
			if got != "[]" {
				t.Errorf("%s %s instant: %s", tg.name, q, got)
			}
			p := url.Values{"query": {q}, "start": {secs(base)}, "end": {secs(at)}, "step": {"10"}}
			if _, got := metricResult(t, tg.get(t, "/loki/api/v1/query_range", "zr", p, nil)); got != "[]" {
				t.Errorf("%s %s range: %s", tg.name, q, got)
			}
		}
	}
}
