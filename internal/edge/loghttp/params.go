// Package loghttp parses Loki's HTTP query parameters into typed requests,
// with Loki's defaults, order of checks and error texts.
package loghttp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// Loki's defaults (pkg/loghttp/params.go).
const (
	DefaultLimit = 100
	defaultSince = time.Hour
	// MaxPoints bounds (end-start)/step.
	MaxPoints = 11000
)

// Error is a bad parameter; Loki answers 400 with its text.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Direction orders log entries.
type Direction int

// Directions; Backward is the default.
const (
	Backward Direction = iota
	Forward
)

func parseLimit(v string) (uint32, error) {
	l, err := parseInt(v, DefaultLimit)
	if err != nil {
		return 0, err
	}
	if l <= 0 {
		return 0, errorf("limit must be a positive value")
	}
	return uint32(l), nil
}

func parseInt(v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, &Error{Msg: err.Error()}
	}
	return n, nil
}

// ParseTimestamp reads every timestamp form Loki accepts: a float (Unix
// seconds, fraction rounded to ms), an integer of up to 10 digits (Unix
// seconds), a longer integer (Unix ns), or RFC3339Nano.
func ParseTimestamp(v string, def time.Time) (time.Time, error) {
	if v == "" {
		return def, nil
	}
	if strings.Contains(v, ".") {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			s, frac := math.Modf(f)
			frac = math.Round(frac*1000) / 1000
			return time.Unix(int64(s), int64(frac*float64(time.Second))), nil
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		if t, terr := time.Parse(time.RFC3339Nano, v); terr == nil {
			return t, nil
		}
		return time.Time{}, err
	}
	if len(v) <= 10 {
		return time.Unix(n, 0), nil
	}
	return time.Unix(0, n), nil
}

func parseDirection(v string) (Direction, error) {
	switch strings.ToUpper(v) {
	case "", "BACKWARD":
		return Backward, nil
	case "FORWARD":
		return Forward, nil
	}
	return Forward, errorf("invalid direction '%s'", v)
}

// Bounds reads start, end and since, given by get, as a labels, series or
// range request reads them (Loki's defaults: end now, start since before
// the earlier of end and now).
func Bounds(f *Form, now time.Time) (time.Time, time.Time, error) {
	get := f.get
	since := defaultSince
	if s := get("since"); s != "" {
		d, err := model.ParseDuration(s)
		if err != nil {
			return time.Time{}, time.Time{}, errorf("could not parse 'since' parameter: %s", err)
		}
		since = time.Duration(d)
	}
	end, err := ParseTimestamp(get("end"), now)
	if err != nil {
		return time.Time{}, time.Time{}, errorf("could not parse 'end' parameter: %s", err)
	}
	endOrNow := end
	if end.After(now) {
		endOrNow = now
	}
	start, err := ParseTimestamp(get("start"), endOrNow.Add(-since))
	if err != nil {
		return time.Time{}, time.Time{}, errorf("could not parse 'start' parameter: %s", err)
	}
	return start, end, nil
}

// DefaultStep is Loki's step when none is given: max(floor(range/250s), 1s).
func DefaultStep(start, end time.Time) time.Duration {
	return time.Duration(math.Max(math.Floor(end.Sub(start).Seconds()/250), 1)) * time.Second
}

// parseSecondsOrDuration reads "15", "0.5" (seconds) or "15s", "1m".
func parseSecondsOrDuration(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		ns := f * float64(time.Second)
		if ns > float64(math.MaxInt64) || ns < float64(math.MinInt64) {
			return 0, errorf("cannot parse %q to a valid duration. It overflows int64", v)
		}
		return time.Duration(ns), nil
	}
	if d, err := model.ParseDuration(v); err == nil {
		return time.Duration(d), nil
	}
	return 0, errorf("cannot parse %q to a valid duration", v)
}
