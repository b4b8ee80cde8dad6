package logrow

import (
	"testing"
	"time"
)

func TestParseUTCTimeAgreesWithTimeParse(t *testing.T) {
	for _, s := range []string{
		"2025-01-15T00:00:00Z", "2025-01-14T23:55:00.000000001Z", "1970-01-01T00:00:00.5Z",
		"2024-02-29T12:34:56.123456789Z", "2262-04-11T23:47:16.854775807Z", "1677-09-21T00:12:43.145224192Z",
		"2025-02-30T00:00:00Z", "2025-13-01T00:00:00Z", "2025-01-15T00:00:00.Z", "2025-01-15T00:00:00.1234567890Z",
		"2025-01-15T00:00:00+01:00", "2025-01-15 00:00:00Z", "x025-01-15T00:00:00Z",
	} {
		want, werr := time.Parse(time.RFC3339Nano, s)
		got, err := ParseTime([]byte(s))
		if (err != nil) != (werr != nil) || (err == nil && got != want.UnixNano()) {
			t.Errorf("%s: got %d, %v; time.Parse %d, %v", s, got, err, want.UnixNano(), werr)
		}
		if ns, ok := parseUTCTime([]byte(s)); ok && (werr != nil || ns != want.UnixNano()) {
			t.Errorf("%s: fast path %d, time.Parse %d, %v", s, ns, want.UnixNano(), werr)
		}
	}
}
