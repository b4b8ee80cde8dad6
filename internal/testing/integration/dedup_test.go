package integration

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/parity"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// dedupPushes repeat entries within a push and across pushes (an agent's
// retry, whole and in part, alone and beside another stream), with the
// same line at one timestamp under different structured metadata and the
// same entry in two streams.
func dedupPushes() []string {
	at := func(d time.Duration) string { return fmt.Sprint(parity.Anchor.Add(time.Hour + d).UnixNano()) }
	entry := func(d time.Duration, line string, md ...string) string {
		if len(md) == 0 {
			return fmt.Sprintf(`[%q,%q]`, at(d), line)
		}
		return fmt.Sprintf(`[%q,%q,{%q:%q}]`, at(d), line, md[0], md[1])
	}
	stream := func(pod string, entries ...string) string {
		return fmt.Sprintf(`{"stream":{"app":"dup","pod":%q},"values":[%s]}`, pod, strings.Join(entries, ","))
	}
	push := func(streams ...string) string { return `{"streams":[` + strings.Join(streams, ",") + `]}` }
	first := stream("a", entry(time.Minute, "alpha"), entry(time.Minute, "alpha"), entry(time.Minute, "beta"),
		entry(2*time.Minute, "gamma", "trace_id", "x"), entry(2*time.Minute, "gamma", "trace_id", "y"), entry(3*time.Minute, "delta"))
	partly := stream("a", entry(3*time.Minute, "delta"), entry(4*time.Minute, "epsilon"), entry(30*time.Second, "zeta"),
		entry(2*time.Minute, "gamma", "trace_id", "x"), entry(2*time.Minute, "gamma"))
	other := stream("b", entry(time.Minute, "alpha"), entry(time.Minute, "alpha"))
	return []string{push(first), push(first), push(partly), push(other), push(other, partly), push(partly, first, other)}
}

func dedupQueries() []parity.Case {
	span := func(kv ...string) map[string]string {
		m := map[string]string{"start": "@1h", "end": "@2h"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	return []parity.Case{
		{ID: "dedup_forward", Endpoint: "/loki/api/v1/query_range", Params: span("query", `{app="dup"}`, "limit", "100", "direction", "forward")},
		// Backward, without the entries sharing a timestamp in a stream, whose
		// order Loki does not keep (parity/known-gaps.txt, logs_bursty_*).
		{ID: "dedup_backward", Endpoint: "/loki/api/v1/query_range", Params: span("query", `{app="dup"} != "beta" != "gamma"`, "limit", "100"),
			Headers: map[string]string{"X-Loki-Response-Encoding-Flags": "categorize-labels"}},
		{ID: "dedup_count", Endpoint: "/loki/api/v1/query", Params: map[string]string{"query": `count_over_time({app="dup"}[1h])`, "time": "@2h"}},
		{ID: "dedup_sum_range", Endpoint: "/loki/api/v1/query_range", Params: span("query", `sum by (pod) (count_over_time({app="dup"}[1m]))`, "step", "60")},
		{ID: "dedup_bytes", Endpoint: "/loki/api/v1/query", Params: map[string]string{"query": `sum(bytes_over_time({app="dup"} |= "a" [1h]))`, "time": "@2h"}},
		{ID: "dedup_metadata", Endpoint: "/loki/api/v1/query", Params: map[string]string{"query": `sum by (trace_id) (count_over_time({app="dup"} | trace_id != "" [1h]))`, "time": "@2h"}},
	}
}

// TestDuplicatePushesMatchLoki: entries repeated within and across pushes
// are stored once, as Loki keeps them (testdata/dedup_loki.json, recorded
// with make dedup-record), on both backends with vloki the only writer.
func TestDuplicatePushesMatchLoki(t *testing.T) {
	pushesMatchLoki(t, "dedup_loki.json", "DEDUP_RECORD_LOKI_URL", dedupPushes(), dedupQueries(),
		func(c *config.Config) { c.Backend.SoleWriter = "on" })
}

func sendPushes(t *testing.T, base, tenant string, bodies []string) []int {
	t.Helper()
	var out []int
	for _, body := range bodies {
		req, err := http.NewRequest(http.MethodPost, base+"/loki/api/v1/push", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if tenant != "" {
			req.Header.Set("X-Scope-OrgID", tenant)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		out = append(out, resp.StatusCode)
	}
	return out
}

// TestRacingPushesStoredOnce: with vloki the only writer, eight copies of
// one push sent at once (retries racing each other) are stored once, and
// eight pushes of the same stream over disjoint times, sent at once
// beside them, are all stored: a stream's pushes wait for each other only
// where their times overlap.
func TestRacingPushesStoredOnce(t *testing.T) {
	for _, tg := range targetsWith(t, func(c *config.Config) { c.Backend.SoleWriter = "on" }) {
		t.Run(tg.name, func(t *testing.T) {
			base := time.Now().Add(-time.Hour).Truncate(time.Minute)
			body := func(part int) string {
				var vals []string
				for i := range 50 {
					vals = append(vals, fmt.Sprintf(`[%q,"line %d"]`, fmt.Sprint(base.Add(time.Duration(part)*time.Minute+time.Duration(i)*time.Second).UnixNano()), i))
				}
				return `{"streams":[{"stream":{"app":"race"},"values":[` + strings.Join(vals, ",") + `]}]}`
			}
			var wg sync.WaitGroup
			for i := range 16 {
				part := 0 // the same push, eight times
				if i%2 == 1 {
					part = 1 + i/2 // eight disjoint minutes
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					if got := sendPushes(t, tg.url, "race", []string{body(part)}); got[0] != http.StatusNoContent {
						t.Errorf("push: %d", got[0])
					}
				}()
			}
			wg.Wait()
			vltest.Flush(t, tg.vl)
			var got struct {
				Data struct {
					Result []struct {
						Value [2]any `json:"value"`
					} `json:"result"`
				} `json:"data"`
			}
			decode(t, tg.get(t, "/loki/api/v1/query", "race", url.Values{"query": {`sum(count_over_time({app="race"}[2h]))`}}, nil), &got)
			if len(got.Data.Result) != 1 || got.Data.Result[0].Value[1] != "450" {
				t.Fatalf("stored %+v, want 450 entries (50 once, 8 × 50 disjoint)", got.Data.Result)
			}
		})
	}
}
