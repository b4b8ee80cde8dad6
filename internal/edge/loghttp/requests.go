package loghttp

import (
	"sort"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
)

// RangeQuery is a query_range request.
type RangeQuery struct {
	Query string
	// Expr is Query parsed (DecodeRange).
	Expr logql.Expr
	// Unbuilt: Expr is only the selector of a log query one of whose
	// stages fails to build, asked with categorize-labels, which Loki
	// answers with no streams (api.unbuiltLogQuery).
	Unbuilt    bool
	Start, End time.Time
	Step       time.Duration
	Interval   time.Duration
	Limit      uint32
	Direction  Direction
	Headers    Headers
	Identity   Identity
}

// InstantQuery is a query request.
type InstantQuery struct {
	Query string
	// Expr is Query parsed (DecodeInstant).
	Expr      logql.Expr
	Time      time.Time
	Limit     uint32
	Direction Direction
	Headers   Headers
	Identity  Identity
}

// LabelQuery is a labels or label-values request.
type LabelQuery struct {
	// Start and End are the whole UTC days of the range asked
	// (LabelIndexSpan); Asked is the range as asked.
	Start, End time.Time
	Asked      [2]time.Time
	Query      string
	// Matchers is Query parsed (none: every stream).
	Matchers []*logql.Matcher
	// Name is the label whose values are asked ("": label names).
	Name     string
	Identity Identity
}

// SeriesQuery is a series request; no matchers means every series.
type SeriesQuery struct {
	Start, End time.Time
	Matchers   []string
	// Selectors are Matchers parsed (none: every series).
	Selectors [][]*logql.Matcher
	Identity  Identity
}

// ParseRangeQuery checks parameters in Loki's order. The caller parses the
// query next and then applies CheckEntriesLimit, as Loki's frontend does.
func ParseRangeQuery(f *Form, now time.Time) (*RangeQuery, error) {
	var err error
	q := &RangeQuery{Query: f.get("query")}
	if q.Start, q.End, err = Bounds(f, now); err != nil {
		return nil, err
	}
	if q.End.Before(q.Start) {
		return nil, errorf("end timestamp must not be before or equal to start time")
	}
	if q.Limit, err = parseLimit(f.get("limit")); err != nil {
		return nil, err
	}
	if q.Direction, err = parseDirection(f.get("direction")); err != nil {
		return nil, err
	}
	if err := q.parseStep(f); err != nil {
		return nil, err
	}
	if v := f.get("interval"); v != "" {
		if q.Interval, err = parseSecondsOrDuration(v); err != nil {
			return nil, err
		}
	}
	if q.Interval < 0 {
		return nil, errorf("interval must be >= 0")
	}
	return q, nil
}

// LegacyQuery is an /api/prom/query request: query_range's parameters and
// the legacy regexp filter, which the caller folds into the query.
type LegacyQuery struct {
	RangeQuery
	Regexp string
}

// ParseLegacyQuery reads /api/prom/query's parameters as ParseRangeQuery
// does (Loki parses it as a range query), then regexp.
func ParseLegacyQuery(f *Form, now time.Time) (*LegacyQuery, error) {
	q, err := ParseRangeQuery(f, now)
	if err != nil {
		return nil, err
	}
	return &LegacyQuery{RangeQuery: *q, Regexp: f.get("regexp")}, nil
}

func (q *RangeQuery) parseStep(f *Form) error {
	q.Step = DefaultStep(q.Start, q.End)
	if v := f.get("step"); v != "" {
		var err error
		if q.Step, err = parseSecondsOrDuration(v); err != nil {
			return err
		}
	}
	if q.Step <= 0 {
		return errorf("zero or negative query resolution step widths are not accepted. Try a positive integer")
	}
	if q.End.Sub(q.Start)/q.Step > MaxPoints {
		return errorf("exceeded maximum resolution of 11,000 points per time series. Try increasing the value of the step parameter")
	}
	return nil
}

// CheckEntriesLimit is the frontend's max_entries_limit_per_query check.
func CheckEntriesLimit(limit uint32, maxEntries int) error {
	if maxEntries > 0 && int(limit) > maxEntries {
		return errorf("max entries limit per query exceeded, limit > max_entries_limit_per_query (%d > %d)", limit, maxEntries)
	}
	return nil
}

// ParseInstantQuery reads a query request.
func ParseInstantQuery(f *Form, now time.Time) (*InstantQuery, error) {
	var err error
	q := &InstantQuery{Query: f.get("query")}
	if q.Limit, err = parseLimit(f.get("limit")); err != nil {
		return nil, err
	}
	if q.Time, err = ParseTimestamp(f.get("time"), now); err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	if q.Direction, err = parseDirection(f.get("direction")); err != nil {
		return nil, err
	}
	return q, nil
}

// ParseLabelQuery reads a labels or label-values request.
func ParseLabelQuery(f *Form, now time.Time) (*LabelQuery, error) {
	var err error
	q := &LabelQuery{Query: f.get("query")}
	if q.Start, q.End, err = Bounds(f, now); err != nil {
		return nil, err
	}
	return q, nil
}

// ParseSeriesQuery reads match and match[] (unioned, sorted); a lone {}
// means every series.
func ParseSeriesQuery(f *Form, now time.Time) (*SeriesQuery, error) {
	var err error
	q := &SeriesQuery{}
	if q.Start, q.End, err = Bounds(f, now); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, m := range append(append([]string(nil), f.all("match")...), f.all("match[]")...) {
		if !seen[m] {
			seen[m] = true
			q.Matchers = append(q.Matchers, m)
		}
	}
	sort.Strings(q.Matchers)
	if len(q.Matchers) == 1 && strings.ReplaceAll(q.Matchers[0], " ", "") == "{}" {
		q.Matchers = nil
	}
	return q, nil
}

// DetectedFieldsQuery is a detected_fields or detected_field values call.
type DetectedFieldsQuery struct {
	Query      string
	Start, End time.Time
	// LineLimit is how many entries are read (line_limit, default 100).
	LineLimit int
	// Limit is how many fields or values are returned (limit or
	// field_limit, default 1000).
	Limit    int
	Identity Identity
}

// ParseDetectedFieldsQuery reads Loki's detected_fields parameters.
func ParseDetectedFieldsQuery(f *Form, now time.Time) (*DetectedFieldsQuery, error) {
	var err error
	q := &DetectedFieldsQuery{Query: f.get("query")}
	if q.Start, q.End, err = Bounds(f, now); err != nil {
		return nil, err
	}
	if q.End.Before(q.Start) {
		return nil, errorf("end timestamp must not be before or equal to start time")
	}
	if q.LineLimit, err = parseInt(f.get("line_limit"), 100); err != nil {
		return nil, err
	}
	limit := f.get("limit")
	if limit == "" {
		limit = f.get("field_limit")
	}
	if q.Limit, err = parseInt(limit, 1000); err != nil {
		return nil, err
	}
	if q.LineLimit <= 0 || q.Limit <= 0 {
		return nil, errorf("limit must be a positive value")
	}
	return q, nil
}
