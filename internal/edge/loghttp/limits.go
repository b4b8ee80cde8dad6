package loghttp

import (
	"time"

	"github.com/prometheus/common/model"
)

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

// CheckRangeOrder is the check Loki's querier makes of a labels or series
// range after clamping its start to max_query_lookback (vloki has none):
// an end before the start is data "no longer available". (A Loki whose
// results cache holds an answer under the same key answers 500 instead,
// "merging responses requires at least one response".)
func CheckRangeOrder(start, end time.Time) error {
	if end.Before(start) {
		return errorf("this data is no longer available, it is past now - max_query_lookback (0s)")
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
