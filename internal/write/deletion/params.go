package deletion

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
)

// Loki's texts for bad delete requests (all 400).
const (
	msgQueryNotSet      = "query not set"
	msgInvalidQuery     = "invalid query expression"
	msgStartNotSet      = "start time not set"
	msgInvalidStart     = "invalid start time: require unix seconds or RFC3339 format"
	msgInvalidEnd       = "invalid end time: require unix seconds or RFC3339 format"
	msgFuture           = "deletes in the future are not allowed"
	msgStartAfterEnd    = "start time can't be greater than or equal to end time"
	msgInvalidInterval  = "invalid max_interval: valid time units are 's', 'm', 'h'"
	msgNotFound         = "could not find delete request with given id"
	msgProcessing       = "deletion of request which is in process or already processed is not allowed"
	msgPastCancelPeriod = "Cancellation of partially completed delete request or delete request past the deadline of %s since its creation is not allowed. To force, use the ?force query parameter"
)

// BadRequest is a delete request Loki refuses with 400.
type BadRequest struct{ Msg string }

func (e *BadRequest) Error() string { return e.Msg }

func bad(msg string) error { return &BadRequest{Msg: msg} }

// NewRequest is a decoded create call.
type NewRequest struct {
	Query          string
	Selector       logql.LogSelectorExpr
	StartMs, EndMs int64
}

// CreateParams are the create call's URL parameters (Loki reads only the
// query string, never a form body).
type CreateParams struct {
	Query, Start, End, MaxInterval string
}

// Decode checks a create call in Loki's order and with its texts;
// maxInterval is Loki's delete_max_interval (0: none).
func (p CreateParams) Decode(now time.Time, maxInterval time.Duration) (NewRequest, error) {
	if p.Query == "" {
		return NewRequest{}, bad(msgQueryNotSet)
	}
	sel, err := logql.ParseLogSelector(p.Query, true)
	if err != nil {
		return NewRequest{}, bad(msgInvalidQuery)
	}
	if p.Start == "" {
		return NewRequest{}, bad(msgStartNotSet)
	}
	start, ok := parseTime(p.Start)
	if !ok {
		return NewRequest{}, bad(msgInvalidStart)
	}
	end := now.UnixMilli()
	if p.End != "" {
		if end, ok = parseTime(p.End); !ok {
			return NewRequest{}, bad(msgInvalidEnd)
		}
	}
	if end > now.UnixMilli() {
		return NewRequest{}, bad(msgFuture)
	}
	if start >= end {
		return NewRequest{}, bad(msgStartAfterEnd)
	}
	if hasFilter(sel) {
		if err := checkMaxInterval(p.MaxInterval, maxInterval, end-start); err != nil {
			return NewRequest{}, err
		}
	}
	return NewRequest{Query: p.Query, Selector: sel, StartMs: start, EndMs: end}, nil
}

// checkMaxInterval is Loki's max_interval check (it only splits the
// work; vloki deletes a request in one task).
func checkMaxInterval(s string, limit time.Duration, spanMs int64) error {
	if s == "" {
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Second {
		return bad(msgInvalidInterval)
	}
	if limit > 0 && d > limit {
		return bad(fmt.Sprintf("max_interval can't be greater than %s", limit))
	}
	if span := time.Duration(spanMs) * time.Millisecond; d > span {
		return bad(fmt.Sprintf("max_interval can't be greater than the interval to be deleted (%s)", span))
	}
	return nil
}

// hasFilter is Loki's test for a pipeline that filters: a label filter,
// or a line filter other than an empty `|= ""` or `|~ ""`.
func hasFilter(sel logql.LogSelectorExpr) bool {
	for _, st := range sel.Stages() {
		switch st := st.(type) {
		case *logql.LabelFilterExpr:
			return true
		case *logql.LineFilterExpr:
			if !emptyPositive(st) {
				return true
			}
		}
	}
	return false
}

// emptyPositive reports `|= ""` or `|~ ""`, which Loki does not count as
// a filter.
func emptyPositive(f *logql.LineFilterExpr) bool {
	if f.Type != logql.LineMatchEqual && f.Type != logql.LineMatchRegexp {
		return false
	}
	for _, v := range f.Values {
		if v != "" {
			return false
		}
	}
	return true
}

// parseTime reads a time as Loki's delete API does: RFC 3339, or exactly
// ten characters of (fractional) Unix seconds; milliseconds result.
func parseTime(s string) (int64, bool) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UnixMilli(), true
	}
	if len(s) != 10 {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return int64(math.Round(f * 1000)), true
}
