package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// The texts and codes below are Loki v3.7.8's compactor's, read from its
// source and checked against a running Loki (deletion on, auth on).

// deleteTargets are vloki on every backend with the delete API on
// (filter-only: nothing is deleted from storage) and requests kept in a
// directory of the test's.
func deleteTargets(t *testing.T, mode string, cancel time.Duration) []target {
	return targetsWith(t, func(cfg *config.Config) {
		cfg.Deletion.Mode, cfg.Deletion.CancelPeriod, cfg.Deletion.Dir = mode, cancel, t.TempDir()
	})
}

func (tg target) deleteCall(t *testing.T, method, tenant string, params url.Values) response {
	t.Helper()
	return tg.do(t, method, "/loki/api/v1/delete?"+params.Encode(), tenant, nil, nil)
}

func unixSeconds(ts time.Time) string { return strconv.FormatInt(ts.Unix(), 10) }

// TestDeleteRequestHidesLinesAtOnce: a delete request hides the lines it
// matches from log and metric queries at once — cached answers included —
// but not from labels or series (Loki's index answers those); cancelling
// it shows them again.
func TestDeleteRequestHidesLinesAtOnce(t *testing.T) {
	for _, tg := range deleteTargets(t, "filter-only", 24*time.Hour) {
		t.Run(tg.name, func(t *testing.T) {
			const tenant = "del-hide"
			var es []entry
			for i := 0; i < 10; i++ {
				kind := "keep"
				if i%2 == 1 {
					kind = "secret"
				}
				es = append(es, entry{ns(base.Add(time.Duration(i) * time.Second)), fmt.Sprintf("%s %d", kind, i)})
			}
			tg.pushJSON(t, tenant, jsonPush(map[string]string{"app": "del"}, es...))
			logs := func() string {
				return summarize(decodeStreams(t, tg.get(t, "/loki/api/v1/query_range", tenant,
					rangeParams(`{app="del"}`, base, base.Add(time.Minute), 100, "forward"), nil)))
			}
			count := func() string {
				r := tg.get(t, "/loki/api/v1/query", tenant, url.Values{"query": {`sum(count_over_time({app="del"}[2m]))`},
					"time": {ns(base.Add(time.Minute))}}, nil)
				return firstSampleValue(t, r)
			}
			all := "del:keep 0,secret 1,keep 2,secret 3,keep 4,secret 5,keep 6,secret 7,keep 8,secret 9"
			if got := logs(); got != all {
				t.Fatalf("before: %q", got)
			}
			if got := count(); got != "10" {
				t.Fatalf("count before: %s", got)
			}
			r := tg.deleteCall(t, http.MethodPost, tenant, url.Values{"query": {`{app="del"} |= "secret"`},
				"start": {unixSeconds(base.Add(-time.Second))}, "end": {unixSeconds(base.Add(20 * time.Second))}})
			id := r.header.Get("X-Delete-Request-Id")
			if r.status != http.StatusNoContent || !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(id) {
				t.Fatalf("create: %d %q id %q", r.status, r.body, id)
			}
			if got := logs(); got != "del:keep 0,keep 2,keep 4,keep 6,keep 8" {
				t.Errorf("after the request: %q", got)
			}
			if got := count(); got != "5" {
				t.Errorf("count after the request: %s", got)
			}
			if vals := labelValues(t, tg, tenant, "app"); vals != "del" {
				t.Errorf("label values (not filtered, as Loki's index): %q", vals)
			}
			checkListed(t, tg, tenant, id, `{app="del"} |= "secret"`)
			if r := tg.deleteCall(t, http.MethodDelete, tenant, url.Values{"request_id": {id}}); r.status != http.StatusNoContent {
				t.Fatalf("cancel: %d %s", r.status, r.body)
			}
			if got := logs(); got != all {
				t.Errorf("after cancelling: %q", got)
			}
			if r := tg.deleteCall(t, http.MethodGet, tenant, nil); r.status != 200 || string(r.body) != "[]\n" {
				t.Errorf("list after cancelling: %d %q", r.status, r.body)
			}
		})
	}
}

func checkListed(t *testing.T, tg target, tenant, id, query string) {
	t.Helper()
	r := tg.deleteCall(t, http.MethodGet, tenant, nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("list: %d %s %q", r.status, r.header.Get("Content-Type"), r.body)
	}
	q, _ := json.Marshal(query)
	want := fmt.Sprintf(`[{"request_id":%q,"start_time":%d,"end_time":%d,"query":%s,"status":"received","created_at":`,
		id, base.Add(-time.Second).Unix(), base.Add(20*time.Second).Unix(), q)
	if !strings.HasPrefix(string(r.body), want) || !strings.HasSuffix(string(r.body), `,"user_id":""}]`+"\n") {
		t.Errorf("list:\n%s\nwant it to begin %s", r.body, want)
	}
}

func labelValues(t *testing.T, tg target, tenant, name string) string {
	t.Helper()
	r := tg.get(t, "/loki/api/v1/label/"+name+"/values", tenant, url.Values{
		"start": {ns(base.Add(-time.Hour))}, "end": {ns(base.Add(time.Hour))}}, nil)
	var body struct{ Data []string }
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("label values: %d %s", r.status, r.body)
	}
	return strings.Join(body.Data, ",")
}

func firstSampleValue(t *testing.T, r response) string {
	t.Helper()
	var body struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || r.status != 200 {
		t.Fatalf("metric: %d %s", r.status, r.body)
	}
	if len(body.Data.Result) == 0 {
		return "none"
	}
	return fmt.Sprint(body.Data.Result[0].Value[1])
}

// TestDeleteRequestErrors: Loki's validation order, codes and texts.
func TestDeleteRequestErrors(t *testing.T) {
	tg := deleteTargets(t, "filter-only", 24*time.Hour)[0]
	const tenant = "del-errors"
	start, end := unixSeconds(base), unixSeconds(base.Add(time.Hour))
	cases := []struct {
		method string
		params url.Values
		status int
		body   string
	}{
		{"POST", url.Values{"start": {start}}, 400, "query not set\n"},
		{"POST", url.Values{"query": {`sum(rate({a="b"}[5m]))`}, "start": {start}}, 400, "invalid query expression\n"},
		{"POST", url.Values{"query": {`{a="b"}`}}, 400, "start time not set\n"},
		{"POST", url.Values{"query": {`{a="b"}`}, "start": {"1714564800000"}}, 400, "invalid start time: require unix seconds or RFC3339 format\n"},
		{"POST", url.Values{"query": {`{a="b"}`}, "start": {start}, "end": {"yesterday"}}, 400, "invalid end time: require unix seconds or RFC3339 format\n"},
		{"POST", url.Values{"query": {`{a="b"}`}, "start": {start}, "end": {unixSeconds(time.Now().Add(time.Hour))}}, 400, "deletes in the future are not allowed\n"},
		{"POST", url.Values{"query": {`{a="b"}`}, "start": {end}, "end": {start}}, 400, "start time can't be greater than or equal to end time\n"},
		{"POST", url.Values{"query": {`{a="b"} |= "x"`}, "start": {start}, "end": {end}, "max_interval": {"1d"}}, 400, "invalid max_interval: valid time units are 's', 'm', 'h'\n"},
		{"POST", url.Values{"query": {`{a="b"} |= "x"`}, "start": {start}, "end": {end}, "max_interval": {"25h"}}, 400, "max_interval can't be greater than 24h0m0s\n"},
		{"POST", url.Values{"query": {`{a="b"} |= "x"`}, "start": {start}, "end": {end}, "max_interval": {"2h"}}, 400, "max_interval can't be greater than the interval to be deleted (1h0m0s)\n"},
		{"DELETE", url.Values{"request_id": {"00000000"}}, 404, "could not find delete request with given id\n"},
		{"PATCH", nil, 405, ""},
	}
	for _, c := range cases {
		r := tg.deleteCall(t, c.method, tenant, c.params)
		if r.status != c.status || string(r.body) != c.body {
			t.Errorf("%s %v: %d %q, want %d %q", c.method, c.params, r.status, r.body, c.status, c.body)
		}
	}
	// Without a filter, max_interval is not looked at.
	r := tg.deleteCall(t, "POST", tenant, url.Values{"query": {`{a="b"}`}, "start": {start}, "end": {end}, "max_interval": {"bogus"}})
	if r.status != http.StatusNoContent {
		t.Errorf("max_interval without a filter: %d %s", r.status, r.body)
	}
	r = tg.get(t, "/loki/api/v1/cache/generation_numbers", tenant, nil, nil)
	if r.status != 200 || !regexp.MustCompile(`^"\d{19}"\n$`).Match(r.body) {
		t.Errorf("generation_numbers: %d %q", r.status, r.body)
	}
	r = tg.get(t, "/loki/api/v1/cache/generation_numbers", "del-none", nil, nil)
	if string(r.body) != "\"\"\n" {
		t.Errorf("generation_numbers of a tenant without requests: %q", r.body)
	}
	disabled := targetsWith(t, func(cfg *config.Config) { cfg.Deletion.Mode = "disabled" })[0]
	r = disabled.deleteCall(t, "GET", tenant, nil)
	if r.status != http.StatusForbidden || string(r.body) != "deletion is not available for this tenant\n" {
		t.Errorf("disabled: %d %q", r.status, r.body)
	}
}

// TestDeleteRequestDeletesFromStorage: in filter-and-delete mode, once the
// cancel period has passed, the rows are deleted from VictoriaLogs and so
// from every read path — label values, series and volumes lose a stream
// deleted whole, patterns its lines — and the request is listed
// processed; a backend without delete tasks refuses the request.
func TestDeleteRequestDeletesFromStorage(t *testing.T) {
	targets := targetsWith(t, func(cfg *config.Config) {
		cfg.Deletion.Mode, cfg.Deletion.CancelPeriod, cfg.Deletion.Dir = "filter-and-delete", 0, t.TempDir()
		cfg.Patterns.Enabled = true
	})
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			tenant := fmt.Sprintf("del-store-%d", time.Now().UnixNano())
			at := time.Now().Add(-10 * time.Minute)
			var gone []entry
			for i := 0; i < 50; i++ { // enough for a pattern
				gone = append(gone, entry{ns(at.Add(time.Duration(i) * time.Second)), fmt.Sprintf("user %d logged in from host-%d", i, i%7)})
			}
			tg.pushJSON(t, tenant, jsonPush(map[string]string{"app": "gone"}, gone...))
			tg.pushJSON(t, tenant, jsonPush(map[string]string{"app": "stays"}, entry{ns(at), "c"}))
			paths := readPaths(t, tg, tenant, at)
			if want := "values=gone,stays series=gone,stays volume=gone,stays patterns=1"; paths != want {
				t.Fatalf("before: %s, want %s", paths, want)
			}
			r := tg.deleteCall(t, http.MethodPost, tenant, url.Values{"query": {`{app="gone"}`},
				"start": {unixSeconds(at.Add(-time.Minute))}, "end": {unixSeconds(at.Add(time.Minute))}})
			if !canDelete(tg.name) {
				if r.status != http.StatusNotImplemented || !strings.Contains(string(r.body), "-delete.enable") {
					t.Fatalf("a backend without delete tasks: %d %s", r.status, r.body)
				}
				return
			}
			if r.status != http.StatusNoContent {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			deadline := time.Now().Add(60 * time.Second)
			for !strings.Contains(string(tg.deleteCall(t, http.MethodGet, tenant, nil).body), `"status":"processed"`) {
				if time.Now().After(deadline) {
					t.Fatalf("not processed within a minute: %s", tg.deleteCall(t, http.MethodGet, tenant, nil).body)
				}
				time.Sleep(200 * time.Millisecond)
			}
			if n := storedRows(t, tg, tenant, `{app="gone"}`); n != 0 {
				t.Errorf("%d rows of the deleted stream still stored", n)
			}
			if n := storedRows(t, tg, tenant, `{app="stays"}`); n != 1 {
				t.Errorf("%d rows of the other stream stored, want 1", n)
			}
			if paths, want := readPaths(t, tg, tenant, at), "values=stays series=stays volume=stays patterns=0"; paths != want {
				t.Errorf("after: %s, want %s", paths, want)
			}
			r = tg.deleteCall(t, http.MethodDelete, tenant, url.Values{"request_id": {r.header.Get("X-Delete-Request-Id")}})
			if r.status != http.StatusBadRequest || string(r.body) != "deletion of request which is in process or already processed is not allowed\n" {
				t.Errorf("cancelling a processed request: %d %q", r.status, r.body)
			}
		})
	}
}

// readPaths summarises what the index-like read paths answer around at:
// app label values, series, volumes by app and the number of patterns of
// {app="gone"}.
func readPaths(t *testing.T, tg target, tenant string, at time.Time) string {
	t.Helper()
	span := url.Values{"start": {ns(at.Add(-time.Hour))}, "end": {ns(time.Now())}}
	var values struct{ Data []string }
	decodeJSON(t, tg.get(t, "/loki/api/v1/label/app/values", tenant, span, nil), &values)
	var series struct{ Data []map[string]string }
	decodeJSON(t, tg.get(t, "/loki/api/v1/series", tenant, with(span, "match[]", `{app=~".+"}`), nil), &series)
	var volume struct {
		Data struct {
			Result []struct{ Metric map[string]string }
		}
	}
	decodeJSON(t, tg.get(t, "/loki/api/v1/index/volume", tenant, with(span, "query", `{app=~".+"}`, "targetLabels", "app"), nil), &volume)
	var pats struct{ Data []any }
	decodeJSON(t, tg.get(t, "/loki/api/v1/patterns", tenant, with(span, "query", `{app="gone"}`), nil), &pats)
	var s, v []string
	for _, ls := range series.Data {
		s = append(s, ls["app"])
	}
	for _, r := range volume.Data.Result {
		v = append(v, r.Metric["app"])
	}
	sort.Strings(s)
	sort.Strings(v)
	return fmt.Sprintf("values=%s series=%s volume=%s patterns=%d", strings.Join(values.Data, ","), strings.Join(s, ","), strings.Join(v, ","), len(pats.Data))
}

func with(v url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = vs
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}

func decodeJSON(t *testing.T, r response, dst any) {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if err := json.Unmarshal(r.body, dst); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
}

// canDelete reports whether the named backend has delete tasks.
func canDelete(name string) bool {
	for _, r := range vltest.Releases {
		if name == "external-"+r.Name {
			return r.Deletes
		}
	}
	return true // the embedded engine
}

// storedRows counts the tenant's rows matching a LogsQL filter in
// VictoriaLogs itself.
func storedRows(t *testing.T, tg target, tenantName, filter string) int {
	t.Helper()
	n := 0
	err := tg.vl.Query(t.Context(), (&tenant.Resolver{}).Map(tenantName), backend.QueryRequest{Query: filter}, func(*backend.Row) error {
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDeleteOnCluster: a VictoriaLogs cluster deletes too (vlselect with
// -delete.enable hands the task to storage nodes with
// -internaldelete.enable): the rows are gone from both storage nodes.
func TestDeleteOnCluster(t *testing.T) {
	b, _ := vltest.ClusterBackend(t, 1)
	cfg := config.Default()
	cfg.Deletion.Mode, cfg.Deletion.CancelPeriod, cfg.Deletion.Dir = "filter-and-delete", 0, t.TempDir()
	tg, _ := serve(t, cfg, b.Client, "cluster")
	for i := 0; i < 20; i++ { // spread over both storage nodes
		tg.pushNoFlush(t, "", map[string]string{"app": "gone", "pod": string(rune('a' + i))}, entry{ns(base.Add(time.Duration(i) * time.Second)), "line"})
	}
	tg.pushNoFlush(t, "", map[string]string{"app": "stays"}, entry{ns(base), "line"})
	b.Sync(t)
	if n := storedRows(t, tg, tenant.Fake, `{app="gone"}`); n != 20 {
		t.Fatalf("%d rows stored, want 20", n)
	}
	r := tg.deleteCall(t, http.MethodPost, "", url.Values{"query": {`{app="gone"}`},
		"start": {unixSeconds(base.Add(-time.Second))}, "end": {unixSeconds(base.Add(time.Minute))}})
	if r.status != http.StatusNoContent {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(string(tg.deleteCall(t, http.MethodGet, "", nil).body), `"status":"processed"`) {
		if time.Now().After(deadline) {
			t.Fatalf("not processed within a minute: %s", tg.deleteCall(t, http.MethodGet, "", nil).body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := storedRows(t, tg, tenant.Fake, `{app="gone"}`); n != 0 {
		t.Errorf("%d rows of the deleted streams still stored", n)
	}
	if n := storedRows(t, tg, tenant.Fake, `{app="stays"}`); n != 1 {
		t.Errorf("%d rows of the other stream stored, want 1", n)
	}
}
