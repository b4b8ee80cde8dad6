package loghttp

import (
	"time"

	"github.com/prometheus/common/model"
)

// DefaultMaxQueryLength is Loki's default max_query_length (721h).
const DefaultMaxQueryLength = 721 * time.Hour

// CheckQueryLength is Loki's max_query_length (0 disables) on a request
// spanning startMs to endMs (Unix milliseconds, as each endpoint rounds
// them), with Loki's message.
func CheckQueryLength(startMs, endMs int64, max time.Duration) error {
	length := time.Duration(endMs-startMs) * time.Millisecond
	if max > 0 && length > max {
		return errorf("the query time range exceeds the limit (query length: %s, limit: %s)", length, model.Duration(max))
	}
	return nil
}

// CeilMs is Loki's RoundToMilliseconds for an end: up to the next whole
// millisecond.
func CeilMs(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		ms++
	}
	return ms
}
