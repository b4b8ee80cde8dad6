package bench

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/tools/bench/scaledata"
)

// ScaleWorkloads are the scale bench's queries over d, one workload per
// query so that the report gives each its own p50 and p99. Over the
// 100-stream dataset: the seven LogQL queries of the Quickwit-vs-Loki
// benchmark as published (queries/loki_100streams_100docs: the whole span,
// last 100 lines, volumes without a step) and needle searches for trace
// ids over the whole span; over the 25,600-stream dataset (Hosts): the
// benchmark's bucketed_hostname queries (queries/loki_25000streams, over
// their 6 h) and high-cardinality aggregations and metadata over 24 h.
func ScaleWorkloads(d *scaledata.Dataset) []Workload {
	if d.Config().Hosts {
		return highCardinality()
	}
	return slices.Concat(quickwit(d), needles(d), panels())
}

// queen is the benchmark's term filter, backquoted as it publishes it.
const queen = "|~ `\\bqueen\\b`"

// quickwit are the benchmark's seven queries over the whole dataset. The
// twins are what a VictoriaLogs user asks for the same answer: the word
// filter queen, and for the volumes every line counted per step (the
// LogQL reads only the minute before each step: less work, not more).
func quickwit(d *scaledata.Dataset) []Workload {
	all, region := `{agent="benchmark"}`, `{cloud_region="us-east-2"}`
	whole := d.End().Sub(d.Start())
	last100 := func(name, q, twin string) Workload {
		return one("qw "+name, func(now time.Time) Query { return logs(name, q, twin, now, whole, 100) })
	}
	volume := func(name, sel, filter, twinFilter string) Workload {
		q := fmt.Sprintf("sum by (level)(count_over_time(%s%s | drop __error__[1m]))", sel, filter)
		twin := sel + twinFilter + " | stats by (level) count()"
		return one("qw "+name, func(now time.Time) Query { return volumeNoStep(name, q, twin, now, whole) })
	}
	return []Workload{
		last100("term", all+" "+queen, all+" queen"),
		last100("datacenter", region, region),
		last100("datacenter_with_term", region+" "+queen, region+" queen"),
		volume("logs_volume", all, "", ""),
		volume("term_logs_volume", all, " "+queen, " queen"),
		volume("datacenter_logs_volume", region, "", ""),
		volume("term_datacenter_logs_volume", region, " "+queen, " queen"),
	}
}

// needles look up single lines by trace id over the whole span: as a line
// filter and through the json parser, and the line filter's hourly volume
// by level (what a dashboard panel or Explore's histogram asks beside the
// search). Each request asks for another of three lines spread over the
// span.
func needles(d *scaledata.Dataset) []Workload {
	whole := d.End().Sub(d.Start())
	ids := []string{d.TraceIDString(d.Lines() / 5), d.TraceIDString(d.Lines() / 2), d.TraceIDString(d.Lines() * 4 / 5)}
	each := func(name string, query func(now time.Time, id string) Query) Workload {
		return Workload{Name: "needle " + name, Queries: func(now time.Time) []Query {
			var qs []Query
			for _, id := range ids {
				qs = append(qs, query(now, id))
			}
			return qs
		}}
	}
	// LogQL's |= is a substring match: the twin is VictoriaLogs' substring
	// filter (the word filter "id" would miss an id inside a longer token,
	// so it answers another question).
	line := func(id string) string { return `{agent="benchmark"} |= "` + id + `"` }
	twin := func(id string) string { return `{agent="benchmark"} *` + id + `*` }
	return []Workload{
		each("line filter", func(now time.Time, id string) Query { return logs("line filter", line(id), twin(id), now, whole, 100) }),
		each("json trace_id", func(now time.Time, id string) Query {
			return logs("json trace_id", `{agent="benchmark"} | json | trace_id="`+id+`"`,
				`{agent="benchmark"} "`+id+`" | unpack_json fields (trace_id) | filter trace_id:="`+id+`"`, now, whole, 100)
		}),
		each("line filter volume", func(now time.Time, id string) Query {
			return metric("line filter volume", "sum by (level) (count_over_time("+line(id)+" [1h]))",
				twin(id)+" | stats by (level) count()", now, whole, time.Hour)
		}),
	}
}

// panels are Grafana Explore's two panels on one region over the last
// 1 h, 24 h and 7 d, as its Loki data source sends them
// (docs/grafana-requests.md): the logs panel's newest day (the data is
// dense enough to fill its 1,000 lines there, so Grafana asks no older
// day) and the logs volume histogram at the panel's step, split by day,
// newest first. Each request's twin covers the same range.
func panels() []Workload {
	region := `{cloud_region="us-east-2"}`
	var ws []Workload
	for _, r := range []struct {
		name string
		d    time.Duration
	}{{"1h", time.Hour}, {"24h", 24 * time.Hour}, {"7d", 7 * 24 * time.Hour}} {
		ws = append(ws,
			Workload{Name: "panel logs " + r.name, Queries: func(now time.Time) []Query { return panelLogs(region, now, r.d) }},
			Workload{Name: "panel volume " + r.name, Queries: func(now time.Time) []Query { return panelVolume(region, now, r.d) }})
	}
	return ws
}

// panelLogs is the logs panel's request for its newest day over d.
func panelLogs(sel string, now time.Time, d time.Duration) []Query {
	start, end := now.Add(-d).UnixMilli(), now.UnixMilli()
	q := Query{Name: "logs panel", Path: "/loki/api/v1/query_range", Params: map[string]string{"query": sel, "limit": strconv.Itoa(grafanaMaxLines)}}
	newest := grafanaChunks(q, splitLogs(start, end, grafanaSplit.Milliseconds()), grafanaInterval(end-start), true)[0]
	return []Query{withTwin(newest, "/select/logsql/query", sel+" | sort by (_time desc) | limit "+newest.Params["limit"])}
}

// panelVolume is the logs volume histogram over d, a request a day.
func panelVolume(sel string, now time.Time, d time.Duration) []Query {
	start, end := now.Add(-d).UnixMilli(), now.UnixMilli()
	interval := grafanaInterval(end - start)
	volume := logsVolume(Query{Name: "volume panel", Path: "/loki/api/v1/query_range", Params: map[string]string{"query": sel}}, interval)
	qs := grafanaChunks(volume, splitMetric(start, end, interval, grafanaSplit.Milliseconds()), interval, false)
	for i, q := range qs {
		qs[i] = withTwin(q, "/select/logsql/stats_query_range", sel+" | stats by (level) count()", "step")
	}
	return qs
}

// withTwin gives q the twin query over q's own range and the carried
// parameters of q (a volume's step).
func withTwin(q Query, path, twin string, carried ...string) Query {
	p := map[string]string{"query": twin, "start": q.Params["start"], "end": q.Params["end"]}
	for _, k := range carried {
		p[k] = q.Params[k]
	}
	q.Twin = &Request{Path: path, Params: p}
	return q
}

// highCardinality are the queries over 25,600 streams.
func highCardinality() []Workload {
	six, day, hour := 6*time.Hour, 24*time.Hour, time.Hour
	all := `{agent="benchmark"}`
	byHost := `sum by (bucketed_hostname) (count_over_time({agent="benchmark"}[1h]))`
	return []Workload{
		one("hc hostname", func(now time.Time) Query {
			return logs("hostname", `{bucketed_hostname="aa"}`, `{bucketed_hostname="aa"}`, now, six, 1000)
		}),
		one("hc hostname_with_term", func(now time.Time) Query {
			return logs("hostname_with_term", `{bucketed_hostname="ab"} `+queen, `{bucketed_hostname="ab"} queen`, now, six, 1000)
		}),
		one("hc hostname_logs_volume", func(now time.Time) Query {
			return volumeNoStep("hostname_logs_volume", `sum by (level)(count_over_time({bucketed_hostname="01"} | drop __error__[1m]))`,
				`{bucketed_hostname="01"} | stats by (level) count()`, now, six)
		}),
		one("hc sum by host", func(now time.Time) Query {
			return metric("sum by host", byHost, all+" | stats by (bucketed_hostname) count()", now, day, hour)
		}),
		one("hc topk", func(now time.Time) Query {
			return metric("topk", "topk(10, "+byHost+")", "", now, day, hour)
		}),
		one("hc series", func(now time.Time) Query {
			w := span(now, day)
			return meta("series", "/loki/api/v1/series", with(w, "match[]", all), "/select/logsql/streams", with(w, "query", all))
		}),
		one("hc labels", func(now time.Time) Query {
			w := span(now, day)
			return meta("labels", "/loki/api/v1/labels", w, "/select/logsql/stream_field_names", with(w, "query", "*"))
		}),
		one("hc host values", func(now time.Time) Query {
			w := span(now, day)
			return meta("host values", "/loki/api/v1/label/bucketed_hostname/values", w,
				"/select/logsql/stream_field_values", with(w, "query", "*", "field", "bucketed_hostname"))
		}),
		// The twin reads and parses the newest 1,000 lines (Loki's default
		// line_limit), as detected_fields does, and lists their fields.
		one("hc detected_fields", func(now time.Time) Query {
			w := span(now, day)
			return meta("detected_fields", "/loki/api/v1/detected_fields", with(w, "query", all),
				"/select/logsql/query", with(w, "query", all+" | sort by (_time desc) limit 1000 | unpack_json | field_names"))
		}),
		// Logs Drilldown on the host label: every host's volume, then one
		// host's page, over its default 15 minutes.
		{Name: "hc drilldown", Queries: func(now time.Time) []Query {
			return drilldownPage(now, 15*time.Minute, "bucketed_hostname", "aa", "process_name")
		}},
	}
}

// one is a workload of a single query.
func one(name string, q func(now time.Time) Query) Workload {
	return Workload{Name: name, Queries: func(now time.Time) []Query { return []Query{q(now)} }}
}

// volumeNoStep is a range metric query sent without a step, as the
// benchmark sends its volumes (Loki's default step: range/250), with its
// stats twin at that same step.
func volumeNoStep(name, query, twin string, now time.Time, d time.Duration) Query {
	w := span(now, d)
	q := Query{Name: name, Path: "/loki/api/v1/query_range", Params: with(w, "query", query)}
	step := loghttp.DefaultStep(now.Add(-d), now)
	q.Twin = &Request{Path: "/select/logsql/stats_query_range", Params: with(w, "query", twin, "step", seconds(step)+"s")}
	return q
}
