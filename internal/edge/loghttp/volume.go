package loghttp

import (
	"strings"
	"time"
)

// VolumeQuery is an index/volume or index/volume_range request.
type VolumeQuery struct {
	Query        string
	Start, End   time.Time
	Step         time.Duration // 0 for index/volume
	Limit        int
	TargetLabels []string
	// ByLabels is aggregateBy=labels: one series per label name.
	ByLabels bool
	Identity Identity
}

// defaultVolumeLimit is Loki's seriesvolume.DefaultLimit.
const defaultVolumeLimit = 100

// ParseVolumeQuery reads a volume request in Loki's order of checks; the
// range form also takes and checks step like query_range.
func ParseVolumeQuery(f *Form, now time.Time, isRange bool) (*VolumeQuery, error) {
	var err error
	q := &VolumeQuery{Query: f.get("query")}
	if q.Limit, err = parseInt(f.get("limit"), defaultVolumeLimit); err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		q.Limit = defaultVolumeLimit
	}
	if q.Limit < 0 {
		return nil, errorf("limit must be a positive value")
	}
	if isRange {
		rq, err := ParseRangeQuery(f, now)
		if err != nil {
			return nil, err
		}
		q.Start, q.End, q.Step = rq.Start, rq.End, rq.Step
	} else {
		if _, err := ParseInstantQuery(f, now); err != nil {
			return nil, err
		}
		if q.Start, q.End, err = Bounds(f, now); err != nil {
			return nil, err
		}
		if q.End.Before(q.Start) {
			return nil, errorf("end timestamp must not be before or equal to start time")
		}
	}
	switch f.get("aggregateBy") {
	case "", "series":
	case "labels":
		q.ByLabels = true
	default:
		return nil, errorf("invalid aggregation option")
	}
	if t := f.get("targetLabels"); t != "" {
		q.TargetLabels = strings.Split(t, ",")
	}
	return q, nil
}
