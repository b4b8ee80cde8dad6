package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// foreignTenant is a numeric tenant, stored as AccountID 77.
const foreignTenant = "77"

// storeForeignRows writes rows the way an OpenTelemetry or JSON agent
// writes them into VictoriaLogs: dotted names, fields already parsed out
// of the line, and one row with no message at all.
func storeForeignRows(t *testing.T, c *backend.Client) {
	t.Helper()
	rows := []map[string]string{
		{"service.name": "checkout", "k8s.namespace.name": "shop", "message": "payment failed",
			"severity": "ERROR", "http.status_code": "500"},
		{"service.name": "checkout", "k8s.namespace.name": "shop", "level": "info", "event": "login", "user.id": "42"},
		{"app": "web", "message": "GET / 200"},
		{"host": "h1", "message": "kernel: eth0 up"},
	}
	var body strings.Builder
	for i, r := range rows {
		r["_time"] = base.Add(time.Duration(i+1) * time.Second).Format(time.RFC3339Nano)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		body.WriteString(string(b) + "\n")
	}
	err := c.InsertJSONLines(context.Background(), tenant.ID{AccountID: 77}, []byte(body.String()),
		"service.name,k8s.namespace.name,app,host", "message")
	if err != nil {
		t.Fatal(err)
	}
	vltest.Flush(t, c)
}

// foreignStored records the backends holding the foreign rows: tests
// share backends, and the rows are written once.
var foreignStored sync.Map

func foreignTargets(t *testing.T) []target {
	t.Helper()
	tgs := targetsWith(t, func(cfg *config.Config) { cfg.Backend.ForeignData = true })
	for _, tg := range tgs {
		if _, done := foreignStored.LoadOrStore(tg.vl, true); !done {
			storeForeignRows(t, tg.vl)
		}
	}
	return tgs
}

// entriesOf lists "labels line" per entry, sorted, with every label
// except detected_level when levels is false.
func entriesOf(t *testing.T, r response) []string {
	t.Helper()
	var out []string
	for _, s := range decodeStreams(t, r).Data.Result {
		var names []string
		for k := range s.Stream {
			names = append(names, k)
		}
		sort.Strings(names)
		var ls []string
		for _, k := range names {
			ls = append(ls, k+"="+s.Stream[k])
		}
		for _, v := range s.Values {
			out = append(out, "{"+strings.Join(ls, ",")+"} "+v[1].(string))
		}
	}
	sort.Strings(out)
	return out
}

func TestForeignDataLogQueries(t *testing.T) {
	rebuilt := `{"event":"login","level":"info","user.id":"42"}`
	row1 := "{detected_level=error,http_status_code=500,k8s_namespace_name=shop,service_name=checkout,severity=ERROR} payment failed"
	row2 := "{detected_level=info,event=login,k8s_namespace_name=shop,level=info,service_name=checkout,user_id=42} " + rebuilt
	row3 := "{app=web,detected_level=unknown,service_name=web} GET / 200"
	row4 := "{detected_level=unknown,host=h1,service_name=unknown_service} kernel: eth0 up"
	cases := []struct {
		query string
		want  []string
	}{
		{`{service_name="checkout"}`, []string{row1, row2}},
		{`{service_name="checkout"} |= "login"`, []string{row2}},
		{`{service_name="checkout"} != "payment"`, []string{row2}},
		{`{service_name="web"}`, []string{row3}},
		{`{service_name="unknown_service"}`, []string{row4}},
		{`{service_name=~"unknown.*|web"}`, []string{row3, row4}},
		{`{service_name=~".+", service_name!="checkout"}`, []string{row3, row4}},
		{`{k8s_namespace_name="shop"} | http_status_code >= 500`, []string{row1}},
		{`{k8s_namespace_name="shop"} | user_id="42"`, []string{row2}},
		{`{service_name="checkout"} | detected_level="error"`, []string{row1}},
		// The agent parsed the fields already: json adds nothing and
		// reports no error on the plain message.
		{`{service_name="checkout"} | json`, []string{row1, row2}},
		{`{service_name="checkout"} | json | event="login"`, []string{row2}},
	}
	for _, tg := range foreignTargets(t) {
		for _, c := range cases {
			p := rangeParams(c.query, base, base.Add(time.Minute), 100, "forward")
			got := entriesOf(t, tg.get(t, "/loki/api/v1/query_range", foreignTenant, p, nil))
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s %s:\n got  %q\n want %q", tg.name, c.query, got, c.want)
			}
		}
	}
}

func TestForeignDataMetricsAndLabels(t *testing.T) {
	at := base.Add(time.Minute)
	metric := []struct{ query, want string }{
		{`sum by (detected_level) (count_over_time({service_name="checkout"}[1h]))`,
			`[{"metric":{"detected_level":"error"},"value":[1714564860,"1"]},{"metric":{"detected_level":"info"},"value":[1714564860,"1"]}]`},
		{`sum by (service_name) (count_over_time({service_name=~".+"}[1h]))`,
			`[{"metric":{"service_name":"checkout"},"value":[1714564860,"2"]},{"metric":{"service_name":"unknown_service"},"value":[1714564860,"1"]},{"metric":{"service_name":"web"},"value":[1714564860,"1"]}]`},
		{`sum(bytes_over_time({k8s_namespace_name="shop"}[1h]))`,
			fmt.Sprintf(`[{"metric":{},"value":[1714564860,"%d"]}]`, len("payment failed")+len(`{"event":"login","level":"info","user.id":"42"}`))},
		// Every row has a line: VictoriaLogs' buckets sum the bytes.
		{`sum(bytes_over_time({app="web"}[1h]))`, fmt.Sprintf(`[{"metric":{},"value":[1714564860,"%d"]}]`, len("GET / 200"))},
	}
	labels := []struct{ path, match, want string }{
		{"/loki/api/v1/labels", "", `["app","host","k8s_namespace_name","service_name"]`},
		{"/loki/api/v1/label/service_name/values", "", `["checkout","unknown_service","web"]`},
		{"/loki/api/v1/label/k8s_namespace_name/values", "", `["shop"]`},
		{"/loki/api/v1/series", `{service_name="web"}`, `[{"app":"web","service_name":"web"}]`},
	}
	for _, tg := range foreignTargets(t) {
		for _, c := range metric {
			p := url.Values{"query": {c.query}, "time": {secs(at)}}
			_, got := metricResult(t, tg.get(t, "/loki/api/v1/query", foreignTenant, p, nil))
			if got != c.want {
				t.Errorf("%s %s:\n got  %s\n want %s", tg.name, c.query, got, c.want)
			}
		}
		for _, c := range labels {
			p := url.Values{"start": {ns(base)}, "end": {ns(at)}}
			if c.match != "" {
				p.Set("match[]", c.match)
			}
			r := tg.get(t, c.path, foreignTenant, p, nil)
			var a struct {
				Data json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(r.body, &a); err != nil || r.status != 200 {
				t.Fatalf("%s %s: %d %s", tg.name, c.path, r.status, r.body)
			}
			if string(a.Data) != c.want {
				t.Errorf("%s %s:\n got  %s\n want %s", tg.name, c.path, a.Data, c.want)
			}
		}
	}
}

// TestForeignDataSparseSteps checks byte sums over data other agents
// wrote at a step of ten ranges, which reads only the windows: a row
// without a line in a window makes vloki sum the rows (rebuilding the
// line), lines everywhere let VictoriaLogs' buckets sum them.
func TestForeignDataSparseSteps(t *testing.T) {
	shop := len("payment failed") + len(`{"event":"login","level":"info","user.id":"42"}`)
	cases := []struct{ query, want string }{
		{`sum(bytes_over_time({k8s_namespace_name="shop"}[1m] offset -1m))`,
			fmt.Sprintf(`[{"metric":{},"values":[[1714564800,"%d"]]}]`, shop)},
		{`sum(bytes_over_time({app="web"}[1m] offset -1m))`,
			fmt.Sprintf(`[{"metric":{},"values":[[1714564800,"%d"]]}]`, len("GET / 200"))},
	}
	for _, tg := range foreignTargets(t) {
		for _, c := range cases {
			p := url.Values{"query": {c.query}, "start": {secs(base)}, "end": {secs(base.Add(time.Hour))}, "step": {"600"}}
			_, got := metricResult(t, tg.get(t, "/loki/api/v1/query_range", foreignTenant, p, nil))
			if got != c.want {
				t.Errorf("%s %s:\n got  %s\n want %s", tg.name, c.query, got, c.want)
			}
		}
	}
}
