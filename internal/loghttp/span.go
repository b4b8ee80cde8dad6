package loghttp

import (
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// Span estimates how much time a request reads, to schedule it: its
// [start, end] with Loki's defaults, widened by the longest range
// selector in its query (an instant count_over_time(...[24h]) reads a
// day). A request whose parameters do not parse spans nothing: its
// handler answers the error.
func Span(r *http.Request, now time.Time) time.Duration {
	f, err := newForm(r)
	if err != nil {
		return 0
	}
	var span time.Duration
	if f.get("start") != "" || f.get("end") != "" || f.get("since") != "" || f.get("time") == "" {
		if start, end, err := Bounds(f.get, now); err == nil && end.After(start) {
			span = end.Sub(start)
		}
	}
	return span + longestRange(f.get("query"))
}

// longestRange is the longest [duration] in a query's text.
func longestRange(q string) time.Duration {
	var longest time.Duration
	for {
		open := strings.IndexByte(q, '[')
		if open < 0 {
			return longest
		}
		q = q[open+1:]
		end := strings.IndexByte(q, ']')
		if end < 0 {
			return longest
		}
		inner := q[:end]
		if colon := strings.IndexByte(inner, ':'); colon >= 0 {
			inner = inner[:colon] // a subquery's [range:step]
		}
		if d, err := model.ParseDuration(strings.TrimSpace(inner)); err == nil {
			longest = max(longest, time.Duration(d))
		}
		q = q[end+1:]
	}
}
