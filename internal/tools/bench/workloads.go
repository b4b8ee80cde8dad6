package bench

import (
	"fmt"
	"strconv"
	"time"
)

// Query is one request a workload sends, and the LogsQL twin asked of
// VictoriaLogs directly for the same work (nil when there is no fair one).
type Query struct {
	Name    string
	Path    string
	Params  map[string]string
	Headers map[string]string
	Twin    *Request
}

// Request is a plain HTTP GET.
type Request struct {
	Path   string
	Params map[string]string
}

// Workload builds its queries for a given "now" (the end of the seeded
// data, or the moving now of a refresh).
type Workload struct {
	Name    string
	Queries func(now time.Time) []Query
	// Moving: each request uses the wall-clock "now" since the run
	// began (rounded to RefreshEvery), as a refreshing dashboard does.
	Moving bool
}

// RefreshEvery is how often the refresh workload's "now" moves.
const RefreshEvery = 5 * time.Second

// Workloads are the six the issue names, in order.
func Workloads() []Workload {
	return []Workload{
		{Name: "small", Queries: small},
		{Name: "heavy", Queries: heavy},
		{Name: "long_range", Queries: longRange},
		{Name: "compute", Queries: compute},
		{Name: "drilldown", Queries: drilldown},
		{Name: "refresh", Queries: refresh, Moving: true},
	}
}

// ns formats a time as Grafana sends it: integer nanoseconds.
func ns(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }

// iso formats a time as Logs Drilldown sends it.
func iso(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// span is a [now-d, now] window in Grafana's ns form.
func span(now time.Time, d time.Duration) map[string]string {
	return map[string]string{"start": ns(now.Add(-d)), "end": ns(now)}
}

func with(m map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(m)+len(kv)/2)
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// logs is a log query over d with its twin: the same stream filter and
// line filter, newest first, limited.
func logs(name, query, twin string, now time.Time, d time.Duration, limit int) Query {
	w := span(now, d)
	q := Query{Name: name, Path: "/loki/api/v1/query_range", Params: with(w, "query", query, "limit", strconv.Itoa(limit))}
	if twin != "" {
		q.Twin = &Request{Path: "/select/logsql/query", Params: with(w, "query", twin+" | sort by (_time desc) | limit "+strconv.Itoa(limit))}
	}
	return q
}

// metric is a range metric query over d at step with its stats twin.
func metric(name, query, twin string, now time.Time, d, step time.Duration) Query {
	w := span(now, d)
	q := Query{Name: name, Path: "/loki/api/v1/query_range", Params: with(w, "query", query, "step", seconds(step))}
	if twin != "" {
		// VictoriaLogs wants a unit: a bare number of seconds is a 422.
		q.Twin = &Request{Path: "/select/logsql/stats_query_range", Params: with(w, "query", twin, "step", seconds(step)+"s")}
	}
	return q
}

// instant is an instant metric query at now with its stats twin.
func instant(name, query, twin string, now time.Time, lookback time.Duration) Query {
	q := Query{Name: name, Path: "/loki/api/v1/query", Params: map[string]string{"query": query, "time": ns(now)}}
	if twin != "" {
		q.Twin = &Request{Path: "/select/logsql/stats_query", Params: map[string]string{"query": twin, "time": ns(now), "start": ns(now.Add(-lookback)), "end": ns(now)}}
	}
	return q
}

func seconds(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }

// meta is a metadata request with its VictoriaLogs twin path.
func meta(name, path string, params map[string]string, twinPath string, twinParams map[string]string) Query {
	q := Query{Name: name, Path: path, Params: params}
	if twinPath != "" {
		q.Twin = &Request{Path: twinPath, Params: twinParams}
	}
	return q
}

func small(now time.Time) []Query {
	h := span(now, time.Hour)
	all := with(h, "query", "*")
	return []Query{
		meta("labels 1h", "/loki/api/v1/labels", h, "/select/logsql/stream_field_names", all),
		meta("values app", "/loki/api/v1/label/app/values", h, "/select/logsql/stream_field_values", with(all, "field", "app")),
		meta("values namespace", "/loki/api/v1/label/namespace/values", h, "/select/logsql/stream_field_values", with(all, "field", "namespace")),
		meta("values level", "/loki/api/v1/label/level/values", h, "/select/logsql/stream_field_values", with(all, "field", "level")),
		meta("series app", "/loki/api/v1/series", with(h, "match[]", `{app=~".+"}`), "/select/logsql/streams", with(h, "query", `{app=~".+"}`)),
		logs("select 1m", `{app="checkout"}`, `{app="checkout"}`, now, time.Minute, 100),
		logs("select 5m filter", `{app="gateway"} |= "500"`, `{app="gateway"} ~"500"`, now, 5*time.Minute, 100),
		instant("instant count", `sum(count_over_time({app="checkout"}[5m]))`, `{app="checkout"} | stats count()`, now, 5*time.Minute),
		instant("instant rate", `sum(rate({namespace="shop"}[5m]))`, `{namespace="shop"} | stats count()`, now, 5*time.Minute),
		// The twin reads and parses the same 1,000 newest lines (Loki's
		// default line_limit) as detected_fields does, and lists their fields.
		meta("detected_fields", "/loki/api/v1/detected_fields", with(span(now, 15*time.Minute), "query", `{app="checkout"}`),
			"/select/logsql/query", with(span(now, 15*time.Minute), "query", `{app="checkout"} | sort by (_time desc) limit 1000 | unpack_json | field_names`)),
		meta("index stats", "/loki/api/v1/index/stats", with(h, "query", `{app="checkout"}`), "/select/logsql/query", with(h, "query", `{app="checkout"} | stats count() c, count_uniq(_stream) s, sum_len(_msg) b`)),
	}
}

func heavy(now time.Time) []Query {
	h, s := time.Hour, 15*time.Second
	w := span(now, h)
	return []Query{
		logs("json filter", `{app="checkout"} | json | status >= 500`, `{app="checkout"} | unpack_json fields (status) | filter status:>=500`, now, h, 100),
		logs("logfmt filter", `{app="payments"} | logfmt | duration > 500ms`, "", now, h, 100),
		logs("line_format", `{app="checkout"} | json | line_format "{{.path}} {{.status}}"`, "", now, h, 100),
		logs("regex filter", `{namespace="edge"} |~ "GET /api/v1/.*"`, `{namespace="edge"} ~"GET /api/v1/.*"`, now, h, 100),
		metric("rate by app", `sum by (app) (rate({namespace="shop"}[5m]))`, `{namespace="shop"} | stats by (app) count()`, now, h, s),
		metric("rate json filtered", `sum(rate({app="checkout"} | json | status >= 500 [5m]))`, `{app="checkout"} | unpack_json fields (status) | filter status:>=500 | stats count()`, now, h, s),
		metric("count by level", `sum by (level) (count_over_time({namespace="shop"}[5m]))`, `{namespace="shop"} | stats by (level) count()`, now, h, s),
		metric("bytes_rate", `sum by (app) (bytes_rate({namespace="edge"}[5m]))`, `{namespace="edge"} | stats by (app) sum_len(_msg)`, now, h, s),
		metric("topk", `topk(5, sum by (app) (rate({env="prod"}[5m])))`, "", now, h, s),
		meta("detected_fields json", "/loki/api/v1/detected_fields", with(w, "query", `{app="checkout"} | json`), "", nil),
		meta("patterns", "/loki/api/v1/patterns", with(w, "query", `{app="checkout"}`, "step", "30s"), "", nil),
		meta("volume", "/loki/api/v1/index/volume", with(w, "query", `{env="prod"}`, "targetLabels", "app"), "/select/logsql/query", with(w, "query", `{env="prod"} | stats by (app) sum_len(_msg)`)),
		meta("volume_range", "/loki/api/v1/index/volume_range", with(w, "query", `{env="prod"}`, "step", "60", "targetLabels", "app"), "/select/logsql/stats_query_range", with(w, "query", `{env="prod"} | stats by (app) sum_len(_msg)`, "step", "60s")),
	}
}

func longRange(now time.Time) []Query {
	day := 24 * time.Hour
	d := span(now, day)
	return []Query{
		logs("select 6h", `{namespace="shop"}`, `{namespace="shop"}`, now, 6*time.Hour, 1000),
		logs("select 24h filter", `{app="gateway"} |= "503"`, `{app="gateway"} ~"503"`, now, day, 5000),
		logs("select 48h", `{namespace="platform"}`, `{namespace="platform"}`, now, 2*day, 2000),
		metric("rate by app 6h", `sum by (app) (rate({env="prod"}[5m]))`, `{env="prod"} | stats by (app) count()`, now, 6*time.Hour, time.Minute),
		metric("rate by app 24h", `sum by (app) (rate({env="prod"}[5m]))`, `{env="prod"} | stats by (app) count()`, now, day, 5*time.Minute),
		metric("count by level 48h", `sum by (level) (count_over_time({env="prod"}[1h]))`, `{env="prod"} | stats by (level) count()`, now, 2*day, time.Hour),
		metric("bytes_rate 72h", `sum(bytes_rate({env="prod"}[1h]))`, `{env="prod"} | stats sum_len(_msg)`, now, 3*day, time.Hour),
		meta("labels 24h", "/loki/api/v1/labels", d, "/select/logsql/stream_field_names", with(d, "query", "*")),
		meta("series 24h", "/loki/api/v1/series", with(d, "match[]", `{env="prod"}`), "/select/logsql/streams", with(d, "query", `{env="prod"}`)),
		logs("json select 24h", `{namespace="shop"} | json | status >= 400`, `{namespace="shop"} | unpack_json fields (status) | filter status:>=400`, now, day, 5000),
	}
}

func compute(now time.Time) []Query {
	h, s := time.Hour, 15*time.Second
	return []Query{
		metric("error ratio", `sum(rate({app="checkout"} | json | status >= 500 [5m])) / sum(rate({app="checkout"} | json [5m]))`, "", now, h, s),
		metric("times 60", `sum(rate({namespace="shop"}[5m])) * 60`, "", now, h, s),
		metric("per hour", `sum(count_over_time({env="prod"}[1h])) / 3600`, "", now, 6*time.Hour, 5*time.Minute),
		metric("topk 3", `topk(3, sum by (app) (rate({env="prod"}[5m])))`, "", now, h, s),
		metric("by app region", `sum by (app, region) (rate({env="prod"}[5m]))`, "", now, h, s),
		metric("avg_over_time", `avg_over_time({app="checkout"} | json | unwrap latency_ms [5m]) by (app)`, "", now, h, s),
		metric("quantile", `quantile_over_time(0.99, {app="payments"} | logfmt | unwrap duration(duration) [5m]) by (app)`, "", now, h, s),
		metric("count difference", `sum(count_over_time({app="payments"} | logfmt | level="error" [5m])) - sum(count_over_time({app="payments"} | logfmt | level="warn" [5m]))`, "", now, h, s),
		instant("instant sum", `sum by (app) (count_over_time({env="prod"}[1h]))`, "", now, h),
		instant("instant topk", `topk(3, sum by (app) (count_over_time({env="prod"}[1h])))`, "", now, h),
	}
}

// drilldown is what Logs Drilldown sends when a user opens a service.
func drilldown(now time.Time) []Query {
	return drilldownPage(now, time.Hour, "service_name", "checkout", "status")
}

// drilldownPage is what Logs Drilldown sends over d when a user lands on
// its label's page (every value's volume) and opens one value's page:
// its labels, fields, level volume, newest lines and one field's values.
func drilldownPage(now time.Time, d time.Duration, label, value, field string) []Query {
	w := map[string]string{"start": iso(now.Add(-d)), "end": iso(now)}
	tags := map[string]string{"X-Query-Tags": "Source=grafana-lokiexplore-app"}
	sel := fmt.Sprintf("{%s=%q}", label, value)
	qs := []Query{
		{Name: "services volume", Path: "/loki/api/v1/index/volume", Params: with(w, "query", fmt.Sprintf(`{%s=~".+"}`, label), "limit", "5000")},
		{Name: "detected_labels", Path: "/loki/api/v1/detected_labels", Params: with(w, "query", sel)},
		{Name: "detected_fields", Path: "/loki/api/v1/detected_fields", Params: with(w, "query", sel+` | json | logfmt | drop __error__, __error_details__`)},
		metric("level volume", "sum by (detected_level) (count_over_time("+sel+" [15s]))", "", now, d, 15*time.Second),
		{Name: "log lines", Path: "/loki/api/v1/query_range", Params: with(span(now, d), "query", sel, "limit", "100"),
			Headers: map[string]string{"X-Loki-Response-Encoding-Flags": "categorize-labels"}},
		{Name: "field values", Path: "/loki/api/v1/detected_field/" + field + "/values", Params: with(w, "query", sel+` | json`, "limit", "1000")},
	}
	for i := range qs {
		qs[i].Headers = merged(qs[i].Headers, tags)
	}
	return qs
}

// refresh is a dashboard of five panels over the last hour.
func refresh(now time.Time) []Query {
	h, s := time.Hour, 15*time.Second
	return []Query{
		metric("rate by app", `sum by (app) (rate({namespace="shop"}[5m]))`, `{namespace="shop"} | stats by (app) count()`, now, h, s),
		metric("errors by app", `sum by (app) (count_over_time({env="prod", level="error"}[1m]))`, `{env="prod", level="error"} | stats by (app) count()`, now, h, s),
		metric("bytes_rate", `sum(bytes_rate({env="prod"}[5m]))`, `{env="prod"} | stats sum_len(_msg)`, now, h, s),
		metric("json 5xx", `sum(rate({app="checkout"} | json | status >= 500 [5m]))`, `{app="checkout"} | unpack_json fields (status) | filter status:>=500 | stats count()`, now, h, s),
		logs("recent errors", `{env="prod", level="error"}`, `{env="prod", level="error"}`, now, h, 100),
	}
}

func merged(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// String names a query in reports.
func (q Query) String() string { return fmt.Sprintf("%s %s", q.Name, q.Params["query"]) }
