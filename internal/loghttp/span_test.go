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
