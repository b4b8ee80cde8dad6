package loghttp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzParams feeds arbitrary query strings (and form bodies) to every
// parameter parser: none may panic, and an accepted range is ordered.
func FuzzParams(f *testing.F) {
	for _, s := range []string{
		"query=%7Ba%3D%22b%22%7D&start=1&end=2&step=1&limit=10&direction=forward",
		"query=x&start=2024-01-01T00:00:00Z&end=1.5&since=1h&interval=2s",
		"time=1e300&limit=-1&step=0.0001", "start=999999999999999999999&end=-1", "aggregateBy=labels&targetLabels=a,b&step=10",
		"delay_for=6&limit=4294967296", "query=%zz", "line_limit=1&field_limit=0",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	now := time.Unix(1_700_000_000, 0)
	f.Fuzz(func(t *testing.T, raw string, asForm bool) {
		for _, parse := range []func(*http.Request) (any, error){
			func(r *http.Request) (any, error) { return ParseRangeQuery(mustForm(r), now) },
			func(r *http.Request) (any, error) { return ParseInstantQuery(mustForm(r), now) },
			func(r *http.Request) (any, error) { return ParseLabelQuery(mustForm(r), now) },
			func(r *http.Request) (any, error) { return ParseSeriesQuery(mustForm(r), now) },
			func(r *http.Request) (any, error) { return ParseVolumeQuery(mustForm(r), now, true) },
			func(r *http.Request) (any, error) { return ParseTailQuery(mustForm(r), now) },
			func(r *http.Request) (any, error) { return ParseDetectedFieldsQuery(mustForm(r), now) },
		} {
			got, err := parse(fuzzRequest(raw, asForm))
			if q, ok := got.(*RangeQuery); ok && err == nil && q.End.Before(q.Start) {
				t.Fatalf("accepted end %v before start %v", q.End, q.Start)
			}
		}
	})
}

func fuzzRequest(raw string, asForm bool) *http.Request {
	if !asForm {
		return &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/loki/api/v1/query_range", RawQuery: raw}, Header: http.Header{}}
	}
	r, _ := http.NewRequest(http.MethodPost, "/loki/api/v1/query_range", strings.NewReader(raw))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

// mustForm is r's form, or an empty one when r's parameters do not parse
// (ReadForm's error is the edge's).
func mustForm(r *http.Request) *Form {
	f, err := ReadForm(r)
	if err != nil {
		return FormOf(nil)
	}
	return f
}
