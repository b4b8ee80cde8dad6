package loghttp

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestSpan(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	cases := map[string]time.Duration{
		"/q?query={a=\"b\"}": time.Hour, // Loki's default since
		"/q?query={a=\"b\"}&start=1699913600&end=1700000000":                24 * time.Hour,
		"/q?query=count_over_time({a=\"b\"}[24h])&time=1700000000":          24 * time.Hour,
		"/q?query=rate({a=\"b\"}[5m])&start=1699996400&end=1700000000":      time.Hour + 5*time.Minute,
		"/q?query=sum(rate({a=\"b\"}[1d]))/sum(rate({a=\"b\"}[1h]))&time=1": 24 * time.Hour,
		"/q?query={a=\"b\"}&start=bad":                                      0,
	}
	for u, want := range cases {
		if got := Span(httptest.NewRequest("GET", u, nil), now); got != want {
			t.Errorf("%s: %s, want %s", u, got, want)
		}
	}
}

func TestLabelIndexSpanCoversWholeUTCDays(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := []struct{ start, end, from, through string }{
		{"2025-01-15T05:00:00Z", "2025-01-15T06:00:00Z", "2025-01-15T00:00:00Z", "2025-01-15T23:59:59.999999999Z"},
		{"2025-01-15T23:30:00Z", "2025-01-16T00:30:00Z", "2025-01-15T00:00:00Z", "2025-01-16T23:59:59.999999999Z"},
		{"2025-01-15T00:00:00Z", "2025-01-16T00:00:00Z", "2025-01-15T00:00:00Z", "2025-01-15T23:59:59.999999999Z"},
		{"2025-01-15T07:00:00+02:00", "2025-01-15T08:00:00+02:00", "2025-01-15T00:00:00Z", "2025-01-15T23:59:59.999999999Z"},
		{"2025-01-16T00:00:00Z", "2025-01-16T00:00:00Z", "2025-01-16T00:00:00Z", "2025-01-16T23:59:59.999999999Z"},
	}
	for _, c := range cases {
		from, through := LabelIndexSpan(at(c.start), at(c.end))
		if !from.Equal(at(c.from)) || !through.Equal(at(c.through)) {
			t.Errorf("[%s, %s]: got [%s, %s], want [%s, %s]", c.start, c.end, from, through, c.from, c.through)
		}
	}
}
