package bench

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Grafana 12's Loki data source, as docs/grafana-requests.md records it
// from its source: the numbers below are its defaults.
const (
	// GrafanaMaxDataPoints is the panel width in pixels a time series
	// panel asks points for; the interval is range / it, rounded.
	GrafanaMaxDataPoints = 1000
	// grafanaSplit is the query splitting chunk (lokiQuerySplitting, on
	// by default): one day.
	grafanaSplit = 24 * time.Hour
	// grafanaMaxLines is the data source's default line limit, sent with
	// every query that is not split as a metric query.
	grafanaMaxLines = 1000
	// grafanaSafeSteps: the backend never steps finer than range / 11000.
	grafanaSafeSteps = 11000
)

// grafanaShape rewrites a workload's requests (already at a millisecond
// now) the way Grafana sends them: range queries split by day with the
// start aligned to the step (metric) and the newest chunk first, its
// step, direction and limit; Explore's logs volume beside each log
// query; instant queries with its direction and limit. Metadata requests
// already carry millisecond times and pass unchanged.
func grafanaShape(qs []Query) []Query {
	var out []Query
	for _, q := range qs {
		switch q.Path {
		case "/loki/api/v1/query_range":
			out = append(out, grafanaRange(q)...)
		case "/loki/api/v1/query":
			out = append(out, grafanaInstant(q))
		default:
			out = append(out, q)
		}
	}
	return out
}

func grafanaInstant(q Query) Query {
	q.Params = with(q.Params, "direction", "backward", "limit", strconv.Itoa(grafanaMaxLines))
	return q
}

// grafanaRange is one panel query: a metric query split on its step grid,
// or a log query split backwards from its end plus its logs volume.
func grafanaRange(q Query) []Query {
	startMs, errS := strconv.ParseInt(q.Params["start"], 10, 64)
	endMs, errE := strconv.ParseInt(q.Params["end"], 10, 64)
	if errS != nil || errE != nil {
		return []Query{q}
	}
	startMs, endMs = startMs/int64(time.Millisecond), endMs/int64(time.Millisecond)
	interval := grafanaInterval(endMs - startMs)
	if q.Params["step"] == "" {
		logs := grafanaChunks(q, splitLogs(startMs, endMs, grafanaSplit.Milliseconds()), interval, true)
		return append(logs, grafanaChunks(logsVolume(q, interval), splitMetric(startMs, endMs, interval, grafanaSplit.Milliseconds()), interval, false)...)
	}
	return grafanaChunks(q, splitMetric(startMs, endMs, interval, grafanaSplit.Milliseconds()), interval, false)
}

// grafanaChunks are q over each chunk, newest first as Grafana sends
// them. Only the newest keeps q's twin, so a twins target is asked once.
func grafanaChunks(q Query, chunks [][2]int64, intervalMs int64, logs bool) []Query {
	out := make([]Query, 0, len(chunks))
	for i, c := range slices.Backward(chunks) {
		p := map[string]string{"query": q.Params["query"], "direction": "backward",
			"start": strconv.FormatInt(c[0]*int64(time.Millisecond), 10), "end": strconv.FormatInt(c[1]*int64(time.Millisecond), 10),
			"step": fmt.Sprintf("%dms", grafanaStep(intervalMs, c[1]-c[0]))}
		if logs {
			p["limit"] = q.Params["limit"]
		}
		piece := Query{Name: q.Name, Path: q.Path, Params: p, Headers: q.Headers}
		if len(chunks) > 1 {
			piece.Name = fmt.Sprintf("%s [%d/%d]", q.Name, len(chunks)-i, len(chunks))
		}
		if i == len(chunks)-1 {
			piece.Twin = q.Twin
		}
		out = append(out, piece)
	}
	return out
}

// logsVolume is the histogram Explore asks beside a log query, tagged
// as Grafana's backend tags it.
func logsVolume(q Query, intervalMs int64) Query {
	expr := fmt.Sprintf("sum by (level, detected_level) (count_over_time(%s | drop __error__[%s]))",
		q.Params["query"], grafanaDuration(time.Duration(intervalMs)*time.Millisecond))
	return Query{Name: q.Name + " (logs volume)", Path: q.Path,
		Params:  map[string]string{"query": expr, "start": q.Params["start"], "end": q.Params["end"]},
		Headers: merged(q.Headers, map[string]string{"X-Query-Tags": "Source=logvolhist"})}
}

// grafanaInterval is the panel's interval: range / max data points,
// rounded to Grafana's ladder (rangeutil's calculateInterval).
func grafanaInterval(rangeMs int64) int64 {
	return roundInterval(float64(rangeMs) / GrafanaMaxDataPoints)
}

// grafanaStep is the backend's step for one (chunk) range: the interval,
// or range/11000 when coarser, rounded up to whole milliseconds.
func grafanaStep(intervalMs, rangeMs int64) int64 {
	safe := (rangeMs + grafanaSafeSteps - 1) / grafanaSafeSteps
	return max(intervalMs, safe)
}

// intervalLadder is Grafana's rounding of an interval: below each bound
// (ms) the interval becomes the value next to it.
var intervalLadder = [][2]int64{
	{10, 1}, {15, 10}, {35, 20}, {75, 50}, {150, 100}, {350, 200}, {750, 500},
	{1500, 1000}, {3500, 2000}, {7500, 5000}, {12500, 10000}, {17500, 15000},
	{25000, 20000}, {45000, 30000}, {90000, 60000}, {210000, 120000},
	{450000, 300000}, {750000, 600000}, {1050000, 900000}, {1500000, 1200000},
	{2700000, 1800000}, {5400000, 3600000}, {9000000, 7200000},
	{16200000, 10800000}, {32400000, 21600000}, {86400000, 43200000},
	{604800000, 86400000}, {1814400000, 604800000}, {3628800000, 2592000000},
}

func roundInterval(ms float64) int64 {
	for _, r := range intervalLadder {
		if ms < float64(r[0]) {
			return r[1]
		}
	}
	return 31536000000
}

// grafanaDuration is how Grafana writes $__auto: the largest whole unit.
func grafanaDuration(d time.Duration) string {
	day := 24 * time.Hour
	for _, u := range []struct {
		d    time.Duration
		unit string
	}{{365 * day, "y"}, {day, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if d >= u.d {
			return fmt.Sprintf("%d%s", d/u.d, u.unit)
		}
	}
	return "1ms"
}

// splitMetric is Grafana's metric split: chunks of a whole number of
// steps, the first starting at start rounded down to the step, each
// ending one step before the next begins, the last at end.
func splitMetric(start, end, step, chunk int64) [][2]int64 {
	if chunk < step {
		return [][2]int64{{start, end}}
	}
	aligned := chunk / step * step
	var out [][2]int64
	for s := start - start%step; s < end; s += aligned {
		out = append(out, [2]int64{s, min(s+aligned-step, end)})
	}
	return out
}

// splitLogs is Grafana's log split: chunks walked back from end, the
// shorter one oldest; consecutive chunks share their boundary.
func splitLogs(start, end, chunk int64) [][2]int64 {
	if end-start <= chunk {
		return [][2]int64{{start, end}}
	}
	var out [][2]int64
	for e := end; e > start; e -= chunk {
		out = append(out, [2]int64{max(e-chunk, start), e})
	}
	slices.Reverse(out)
	return out
}
