package loghttp

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
)

func TestIdentitySpan(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	cases := map[string]time.Duration{
		"/q?query={a=\"b\"}": time.Hour, // Loki's default since
		"/q?query={a=\"b\"}&start=1699913600&end=1700000000":           24 * time.Hour,
		"/q?query=rate({a=\"b\"}[5m])&start=1699996400&end=1700000000": time.Hour + 5*time.Minute,
		"/i?query=count_over_time({a=\"b\"}[24h])&time=1700000000":     24 * time.Hour,
		"/i?query=sum(rate({a=\"b\"}[1d]))/sum(rate({a=\"b\"}[1h]))":   24 * time.Hour,
	}
	for u, want := range cases {
		f := mustForm(httptest.NewRequest("GET", u, nil))
		var id Identity
		if strings.HasPrefix(u, "/q") {
			q, err := ParseRangeQuery(f, now)
			if err != nil {
				t.Fatal(err)
			}
			q.Expr = mustParse(t, q.Query)
			q.Identify(f, Headers{})
			id = q.Identity
		} else {
			q, err := ParseInstantQuery(f, now)
			if err != nil {
				t.Fatal(err)
			}
			q.Expr = mustParse(t, q.Query)
			q.Identify(f, Headers{})
			id = q.Identity
		}
		if id.Span != want {
			t.Errorf("%s: %s, want %s", u, id.Span, want)
		}
	}
}

func TestIdentityKeyAndWindow(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	identify := func(raw string, h Headers) Identity {
		f := mustForm(rangeReq(raw))
		q, err := ParseRangeQuery(f, now)
		if err != nil {
			t.Fatal(err)
		}
		q.Expr = mustParse(t, q.Query)
		q.Identify(f, h)
		return q.Identity
	}
	a := identify("query=rate({a=\"b\"}[5m])&start=1&end=2", Headers{})
	b := identify("end=2&start=1&query=rate({a=\"b\"}[5m])", Headers{})
	if a.Key != b.Key || a.FollowsNow || !a.End.Equal(time.Unix(2, 0)) || a.Uncacheable {
		t.Fatalf("same request, other order: %+v vs %+v", a, b)
	}
	if c := identify("end=2&start=1&query=rate({a=\"b\"}[5m])", Headers{Flags: Flags{FlagCategorizeLabels}}); c.Key == a.Key {
		t.Fatal("encoding flags do not change the key")
	}
	if c := identify("query=rate({a=\"b\"}[5m])", Headers{}); !c.FollowsNow {
		t.Fatal("no end given, yet the answer does not follow now")
	}
	if c := identify("end=2&start=1&query=rate({a=\"b\"}[5m] offset -1m)", Headers{}); !c.Uncacheable {
		t.Fatal("a negative offset reads after the end")
	}
}

// labelIdentity is the identity of a label request read at 2025-01-16
// 12:00 UTC; wholeDays as Identify takes it.
func labelIdentity(t *testing.T, raw string, wholeDays bool) Identity {
	t.Helper()
	now := time.Date(2025, 1, 16, 12, 0, 0, 0, time.UTC)
	f := mustForm(httptest.NewRequest("GET", "/l?"+raw, nil))
	q, err := ParseLabelQuery(f, now)
	if err != nil {
		t.Fatal(err)
	}
	q.Identify(f, Headers{}, now, wholeDays)
	return q.Identity
}

// hourOfJan15 is 2025-01-15 at hour h, in ns.
func hourOfJan15(h int) string {
	return strconv.FormatInt(time.Date(2025, 1, 15, h, 0, 0, 0, time.UTC).UnixNano(), 10)
}

func TestLabelIdentityHoldsWholeDays(t *testing.T) {
	identify := func(raw string) Identity { return labelIdentity(t, raw, true) }
	day := hourOfJan15
	a, b := identify("start="+day(5)+"&end="+day(6)), identify("start="+day(7)+"&end="+day(9))
	if a.Key != b.Key || !a.DaysFrom.Equal(time.Date(2025, 1, 15, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("two ranges of one day: %+v vs %+v", a, b)
	}
	if c := identify("since=1h"); !c.FollowsNow || !c.DaysFrom.IsZero() {
		t.Fatalf("the last hour follows now: %+v", c)
	}
}

// Answers that follow the push times (the stream index's rule) are keyed
// by the range asked and never cached.
func TestLabelIdentityFollowingPushTimes(t *testing.T) {
	identify := func(raw string) Identity { return labelIdentity(t, raw, false) }
	day := hourOfJan15
	a, b := identify("start="+day(5)+"&end="+day(6)), identify("start="+day(7)+"&end="+day(9))
	if a.Key == b.Key || !a.Uncacheable || !a.DaysFrom.IsZero() {
		t.Fatalf("two ranges of one day: %+v vs %+v", a, b)
	}
}

func mustParse(t *testing.T, q string) logql.Expr {
	t.Helper()
	e, err := logql.ParseExpr(q)
	if err != nil {
		t.Fatal(err)
	}
	return e
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

func TestReadsAheadOnNegativeOffsets(t *testing.T) {
	for q, want := range map[string]bool{
		`sum(rate({a="b"}[5m] offset -1h))`:                          true,
		`rate({a="b"}[5m] OFFSET	-5m)`:                               true,
		`rate({a="b"}[5m] offset 1h) - 1`:                            false,
		`rate({a="b"}[5m] offset 1h) / rate({a="b"}[5m] offset -1m)`: true,
		`{a="b-c"} |= "offset -1h"`:                                  false,
		"rate({a=\"b\"}[5m] offset \n -1h)":                          true,
	} {
		if got := readsAhead(mustParse(t, q)); got != want {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}
