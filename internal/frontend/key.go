package frontend

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/loghttp"
)

// request is what identifies an answer: the route and path, every
// parameter (sorted), and the headers that change the encoding.
type request struct {
	canonical string
	// end is the latest time the answer can read; hasEnd is false when
	// the request reads up to "now".
	end    time.Time
	hasEnd bool
	// start is the earliest time a label-index route's answer reads (the
	// first of its whole UTC days); zero for other routes.
	start time.Time
	// uncacheable marks a request whose answer depends on data after its
	// end (a negative offset; patterns, whose templates later lines still
	// refine and whose window moves with now): never cached.
	uncacheable bool
}

// labelIndexRoutes answer for the whole UTC days of their range, as
// Loki's index does (loghttp.LabelIndexSpan; api's labelQuery): their
// answer holds the streams of end's whole day.
var labelIndexRoutes = map[string]bool{"labels": true, "label_values": true, "detected_labels": true}

// answerHeaders change the bytes of an answer.
var answerHeaders = []string{"X-Loki-Response-Encoding-Flags", "Accept"}

// negativeOffset reports whether q holds `offset -...` (any case, spaces
// before the sign), which reads data after the end.
func negativeOffset(q string) bool {
	if strings.IndexByte(q, '-') < 0 {
		return false
	}
	for i := 0; i+len("offset") <= len(q); i++ {
		if !strings.EqualFold(q[i:i+len("offset")], "offset") {
			continue
		}
		rest := strings.TrimLeft(q[i+len("offset"):], " \t\n\r\f\v")
		if strings.HasPrefix(rest, "-") {
			return true
		}
	}
	return false
}

func describe(route string, r *http.Request, now time.Time, maxQueryLength time.Duration) (*request, error) {
	params, err := requestParams(r)
	if err != nil {
		return nil, err
	}
	req := &request{uncacheable: route == "patterns" || negativeOffset(params.get("query"))}
	endParam := "end"
	if route == "query" {
		endParam = "time"
	}
	var span string
	switch v := params.get(endParam); {
	case v == "":
	case labelIndexRoutes[route]:
		if span, err = req.labelDays(params, now, maxQueryLength); err != nil {
			return nil, err
		}
	default:
		if req.end, err = loghttp.ParseTimestamp(v, now); err != nil {
			return nil, err
		}
		req.hasEnd = true
	}
	req.canonical = canonical(route, r, params, span)
	return req, nil
}

// labelDays sets a label-index request's range to the whole UTC days its
// answer holds. When those days do not move with now (a start is given,
// or the end is past), they are what identifies the answer: the returned
// span stands for start, end and since in the key, so "the last hour"
// asked again later that day is the same answer. A range over
// max_query_length keeps its raw key and is left to the handler's error.
func (q *request) labelDays(ps params, now time.Time, maxQueryLength time.Duration) (string, error) {
	start, end, err := loghttp.Bounds(ps.get, now)
	if err != nil {
		return "", err
	}
	from, through := loghttp.LabelIndexSpan(start, end)
	q.end, q.hasEnd = through, true
	if ps.get("start") == "" && end.After(now) {
		return "", nil // start follows now
	}
	if loghttp.CheckQueryLength(start.UnixMilli(), end.UnixMilli(), maxQueryLength) != nil {
		// Its raw key: it must not share an answer, cached or coalesced.
		q.uncacheable = true
		return "", nil
	}
	q.start = from
	return strconv.FormatInt(from.UnixNano(), 10) + "-" + strconv.FormatInt(through.UnixNano(), 10), nil
}

// spanParams are what a label-index request's day span replaces.
var spanParams = map[string]bool{"start": true, "end": true, "since": true}

// canonical is the route, path, parameters (start, end and since replaced
// by span when there is one) and the headers that change the answer.
func canonical(route string, r *http.Request, ps params, span string) string {
	var b strings.Builder
	b.Grow(len(route) + len(r.URL.Path) + len(r.URL.RawQuery) + 64)
	b.WriteString(route)
	b.WriteByte('\x00')
	b.WriteString(r.URL.Path)
	for _, p := range ps {
		if span != "" && spanParams[p.name] {
			continue
		}
		b.WriteByte('\x00')
		b.WriteString(p.name)
		b.WriteByte('=')
		b.WriteString(p.value)
	}
	if span != "" {
		b.WriteString("\x00days=")
		b.WriteString(span)
	}
	for _, h := range answerHeaders {
		b.WriteByte('\x00')
		b.WriteString(r.Header.Get(h))
	}
	return b.String()
}

type param struct{ name, value string }

// params are a request's parameters sorted by name, each name's values in
// the order given.
type params []param

func (ps params) get(name string) string {
	for _, p := range ps {
		if p.name == name {
			return p.value
		}
	}
	return ""
}

// requestParams reads a GET's parameters straight from its query string
// (sparing the url.Values map a hit never needs), anything else's with
// ParseForm, which the handler reuses on a miss.
func requestParams(r *http.Request) (params, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if err := r.ParseForm(); err != nil {
			return nil, err
		}
		var ps params
		for k, vs := range r.Form {
			for _, v := range vs {
				ps = append(ps, param{k, v})
			}
		}
		sortParams(ps)
		return ps, nil
	}
	raw := r.URL.RawQuery
	ps := make(params, 0, strings.Count(raw, "&")+1)
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		if strings.Contains(pair, ";") {
			return nil, errors.New("invalid semicolon separator in query")
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			return nil, err
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			return nil, err
		}
		ps = append(ps, param{name, value})
	}
	sortParams(ps)
	return ps, nil
}

// sortParams orders parameters by name, each name's values as given.
func sortParams(ps params) {
	slices.SortStableFunc(ps, func(a, b param) int { return strings.Compare(a.name, b.name) })
}

// frozenBefore reports whether everything the request reads lies before
// cut, so its answer can no longer change.
func (q *request) frozenBefore(cut time.Time) bool {
	return q.hasEnd && !q.uncacheable && q.end.Before(cut)
}

// settledByPushes reports whether only pushes can change the request's
// answer while vloki is the sole writer: a label-index route whose first
// day lies more than a day inside the storage's retention (0: none), so
// no rows of it are deleted meanwhile.
func (q *request) settledByPushes(now time.Time, retention time.Duration) bool {
	return !q.start.IsZero() && !q.uncacheable &&
		(retention <= 0 || q.start.After(now.Add(-retention+24*time.Hour)))
}

// key identifies the answer for a tenant at a cache generation.
func (q *request) key(t backend.Tenant, generation uint64) string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(uint64(t.AccountID), 10))
	b.WriteByte(':')
	b.WriteString(strconv.FormatUint(uint64(t.ProjectID), 10))
	b.WriteByte(':')
	b.WriteString(strconv.FormatUint(generation, 10))
	b.WriteByte('\x00')
	b.WriteString(q.canonical)
	return b.String()
}
