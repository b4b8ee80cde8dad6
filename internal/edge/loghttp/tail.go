package loghttp

import (
	"time"
)

// MaxTailDelay is Loki's limit on delay_for, in seconds.
const MaxTailDelay = 5

// TailQuery is a /tail request.
type TailQuery struct {
	Query    string
	Limit    uint32
	Start    time.Time
	DelayFor time.Duration
}

// ParseTailQuery reads tail parameters in Loki's order (limit, start,
// delay_for); the caller parses the query first, as Loki does.
func ParseTailQuery(f *Form, now time.Time) (*TailQuery, error) {
	var err error
	q := &TailQuery{Query: f.get("query")}
	if q.Limit, err = parseLimit(f.get("limit")); err != nil {
		return nil, err
	}
	if q.Start, _, err = Bounds(f, now); err != nil {
		return nil, err
	}
	delay, err := parseInt(f.get("delay_for"), 0)
	if err != nil {
		return nil, err
	}
	if uint32(delay) > MaxTailDelay {
		return nil, errorf("delay_for can't be greater than %d", MaxTailDelay)
	}
	q.DelayFor = time.Duration(uint32(delay)) * time.Second
	return q, nil
}
