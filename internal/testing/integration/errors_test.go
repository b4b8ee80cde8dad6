package integration

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/testing/vltest"
)

func TestBadInputGetsLokiErrors(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			q := func(params url.Values) url.Values {
				params.Set("start", ns(base))
				params.Set("end", ns(base.Add(time.Hour)))
				return params
			}
			cases := []struct {
				name   string
				path   string
				tenant string
				params url.Values
				status int
				body   string
			}{
				{"no org id", "/loki/api/v1/query_range", "", q(url.Values{"query": {`{a="b"}`}}), 401, "no org id\n"},
				{"limit too big", "/loki/api/v1/query_range", "e", q(url.Values{"query": {`{a="b"}`}, "limit": {"6000"}}), 400,
					"max entries limit per query exceeded, limit > max_entries_limit_per_query (6000 > 5000)"},
				{"syntax", "/loki/api/v1/query_range", "e", q(url.Values{"query": {`{a="b"`}}), 400,
					"parse error at line 1, col 7: syntax error: unexpected $end, expecting } or ,"},
				{"empty matcher", "/loki/api/v1/query_range", "e", q(url.Values{"query": {`{a=~".*"}`}}), 400,
					`parse error : queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will`},
				{"bad direction", "/loki/api/v1/query_range", "e", q(url.Values{"query": {`{a="b"}`}, "direction": {"sideways"}}), 400,
					"invalid direction 'sideways'"},
				{"log query on instant", "/loki/api/v1/query", "e", url.Values{"query": {`{a="b"}`}, "time": {ns(base)}}, 400,
					"log queries are not supported as an instant query type, please change your query to a range query type"},
			}
			for _, c := range cases {
				r := tg.get(t, c.path, c.tenant, c.params, nil)
				if r.status != c.status || string(r.body) != c.body {
					t.Errorf("%s: got %d %q; want %d %q", c.name, r.status, r.body, c.status, c.body)
				}
			}
		})
	}
}

func TestBadPushWritesNothing(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			bodies := []string{
				`{"streams":[{"stream":{"app":"bad"},"values":[["not-a-number","x"]]}]}`,
				`{"streams":[{"stream":{"app":"bad"},"values":[["1714564800000000000","ok"]]},{"stream":{"0bad":"x"},"values":[["1714564800000000000","y"]]}]}`,
				`{"streams":`,
			}
			for _, b := range bodies {
				r := tg.do(t, http.MethodPost, "/loki/api/v1/push", "bp", []byte(b), map[string]string{"Content-Type": "application/json"})
				if r.status != http.StatusBadRequest || len(r.body) == 0 {
					t.Errorf("%s: got %d %q, want 400 with a message", b, r.status, r.body)
				}
			}
			vltest.Flush(t, tg.vl)
			res := decodeStreams(t, tg.get(t, "/loki/api/v1/query_range", "bp",
				rangeParams(`{app="bad"}`, base, base.Add(time.Hour), 100, "forward"), nil))
			if len(res.Data.Result) != 0 {
				t.Fatalf("a rejected push wrote %v", res.Data.Result)
			}
		})
	}
}
