package frontend

import (
	"net/http"
	"regexp"
	"sort"
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
	// uncacheable marks a request whose answer depends on data after its
	// end (a negative offset; patterns, whose templates later lines still
	// refine and whose window moves with now): never cached.
	uncacheable bool
}

// answerHeaders change the bytes of an answer.
var answerHeaders = []string{"X-Loki-Response-Encoding-Flags", "Accept"}

// negativeOffset finds `offset -...`, which reads data after the end.
var negativeOffset = regexp.MustCompile(`(?i)offset\s*-`)

func describe(route string, r *http.Request, now time.Time) (*request, error) {
	if err := r.ParseForm(); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(route)
	b.WriteByte('\x00')
	b.WriteString(r.URL.Path)
	keys := make([]string, 0, len(r.Form))
	for k := range r.Form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range r.Form[k] {
			b.WriteByte('\x00')
			b.WriteString(k)
			b.WriteByte('=')
			b.WriteString(v)
		}
	}
	for _, h := range answerHeaders {
		b.WriteByte('\x00')
		b.WriteString(r.Header.Get(h))
	}
	req := &request{canonical: b.String(), uncacheable: route == "patterns" || negativeOffset.MatchString(r.Form.Get("query"))}
	endParam := "end"
	if route == "query" {
		endParam = "time"
	}
	if v := r.Form.Get(endParam); v != "" {
		end, err := loghttp.ParseTimestamp(v, now)
		if err != nil {
			return nil, err
		}
		req.end, req.hasEnd = end, true
	}
	return req, nil
}

// frozenBefore reports whether everything the request reads lies before
// cut, so its answer can no longer change.
func (q *request) frozenBefore(cut time.Time) bool {
	return q.hasEnd && !q.uncacheable && q.end.Before(cut)
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
