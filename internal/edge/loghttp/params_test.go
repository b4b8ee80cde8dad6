package loghttp

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestParseTimestamp(t *testing.T) {
	def := time.Unix(42, 0)
	cases := map[string]time.Time{
		"":                               def,
		"1700000000":                     time.Unix(1700000000, 0),
		"1700000000.5":                   time.Unix(1700000000, 500_000_000),
		"1700000000.1234":                time.Unix(1700000000, 123_000_000),
		"1700000000123":                  time.Unix(0, 1700000000123), // ms read as ns, like Loki
		"1700000000123456789":            time.Unix(0, 1700000000123456789),
		"2024-05-01T12:00:00.000000001Z": time.Date(2024, 5, 1, 12, 0, 0, 1, time.UTC),
	}
	for in, want := range cases {
		got, err := ParseTimestamp(in, def)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q: got %v %v want %v", in, got, err, want)
		}
	}
	if _, err := ParseTimestamp("yesterday", def); err == nil || err.Error() != `strconv.ParseInt: parsing "yesterday": invalid syntax` {
		t.Errorf("bad timestamp error: %v", err)
	}
}

func rangeReq(params string) *http.Request {
	return &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/loki/api/v1/query_range", RawQuery: params}}
}

func TestParseRangeQueryErrors(t *testing.T) {
	now := time.Unix(1700000000, 0)
	cases := map[string]string{
		"start=abc":                 `could not parse 'start' parameter: strconv.ParseInt: parsing "abc": invalid syntax`,
		"end=abc":                   `could not parse 'end' parameter: strconv.ParseInt: parsing "abc": invalid syntax`,
		"since=1.5h":                `could not parse 'since' parameter: unknown unit "." in duration "1.5h"`,
		"start=20&end=10":           "end timestamp must not be before or equal to start time",
		"limit=0":                   "limit must be a positive value",
		"limit=x":                   `strconv.Atoi: parsing "x": invalid syntax`,
		"direction=up":              "invalid direction 'up'",
		"step=0":                    "zero or negative query resolution step widths are not accepted. Try a positive integer",
		"step=1.5s":                 `cannot parse "1.5s" to a valid duration`,
		"start=0&end=100000&step=1": "exceeded maximum resolution of 11,000 points per time series. Try increasing the value of the step parameter",
		"interval=-1":               "interval must be >= 0",
	}
	for params, want := range cases {
		_, err := ParseRangeQuery(mustForm(rangeReq(params)), now)
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v want %q", params, err, want)
		}
	}
}

func TestParseRangeQueryDefaults(t *testing.T) {
	now := time.Unix(1700000000, 0)
	q, err := ParseRangeQuery(mustForm(rangeReq("query=x")), now)
	if err != nil {
		t.Fatal(err)
	}
	if !q.End.Equal(now) || !q.Start.Equal(now.Add(-time.Hour)) || q.Limit != 100 || q.Direction != Backward || q.Step != 14*time.Second {
		t.Fatalf("got %+v", q)
	}
	q, err = ParseRangeQuery(mustForm(rangeReq("query=x&since=10m&end=1700000000&direction=FORWARD&step=0.5&interval=2s")), now)
	if err != nil {
		t.Fatal(err)
	}
	if !q.Start.Equal(now.Add(-10*time.Minute)) || q.Direction != Forward || q.Step != 500*time.Millisecond || q.Interval != 2*time.Second {
		t.Fatalf("got %+v", q)
	}
}

func TestEntriesLimit(t *testing.T) {
	err := CheckEntriesLimit(6000, 5000)
	if err == nil || err.Error() != "max entries limit per query exceeded, limit > max_entries_limit_per_query (6000 > 5000)" {
		t.Fatalf("got %v", err)
	}
	if CheckEntriesLimit(5000, 5000) != nil {
		t.Fatal("5000 must pass")
	}
}

func TestParseSeriesQuery(t *testing.T) {
	r := rangeReq(url.Values{"match[]": {`{b="1"}`, `{a="1"}`}, "match": {`{a="1"}`}}.Encode())
	q, err := ParseSeriesQuery(mustForm(r), time.Unix(1700000000, 0))
	if err != nil || len(q.Matchers) != 2 || q.Matchers[0] != `{a="1"}` {
		t.Fatalf("got %+v %v", q, err)
	}
	q, _ = ParseSeriesQuery(mustForm(rangeReq(url.Values{"match[]": {`{ }`}}.Encode())), time.Unix(1700000000, 0))
	if q.Matchers != nil {
		t.Fatalf("{ } must mean all series, got %v", q.Matchers)
	}
}
