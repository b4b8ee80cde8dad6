package bench

import (
	"fmt"
	"time"
)

// WindowMode says where each request's time window sits.
type WindowMode string

const (
	// WindowFixed: every window ends at the run's now (-now); the refresh
	// workload's now moves every RefreshEvery, as before window modes.
	WindowFixed WindowMode = "fixed"
	// WindowNow: each request's window ends at the wall-clock now of the
	// request, at millisecond precision as Grafana resolves "now".
	WindowNow WindowMode = "now"
	// WindowShifted: each request's window ends at the run's now shifted
	// back by a seeded random 0–MaxShift at nanosecond precision (the
	// peer's warm benchmark).
	WindowShifted WindowMode = "shifted"
	// WindowGrafana: windows as in WindowNow, in the shape Grafana 12's
	// Loki data source sends them (docs/grafana-requests.md): step from
	// the panel's width, start aligned to the step, day splits, newest
	// first, Explore's logs volume beside each log query.
	WindowGrafana WindowMode = "grafana"
)

// MaxShift bounds WindowShifted's random shift.
const MaxShift = 2 * time.Hour

// Window is a run's window mode and, for WindowShifted, its seed.
type Window struct {
	Mode WindowMode
	Seed uint64
}

// ParseWindowMode reads a -window value.
func ParseWindowMode(s string) (WindowMode, error) {
	switch m := WindowMode(s); m {
	case WindowFixed, WindowNow, WindowShifted, WindowGrafana:
		return m, nil
	}
	return "", fmt.Errorf("unknown window mode %q: want fixed, now, shifted or grafana", s)
}

// clock is what places one request in time: the run's now, when its step
// began, the wall clock when it is sent, and its index in the step.
type clock struct {
	runNow, began, wall time.Time
	i                   uint64
}

// nowOf is the "now" of one request of w.
func (win Window) nowOf(w Workload, c clock) time.Time {
	switch win.Mode {
	case WindowNow, WindowGrafana:
		return time.UnixMilli(c.wall.UnixMilli())
	case WindowShifted:
		return c.runNow.Add(-win.shift(c.i))
	}
	if w.Moving {
		return c.runNow.Add(c.wall.Sub(c.began).Truncate(RefreshEvery))
	}
	return c.runNow
}

// shift is the i-th request's shift: the same for the same seed and
// index, so every target is asked the same windows.
func (win Window) shift(i uint64) time.Duration {
	return time.Duration(splitmix(win.Seed^splitmix(i)) % uint64(MaxShift))
}

// splitmix is SplitMix64's finaliser: a well-mixed hash of x.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// queries are w's requests at now, in this mode's shape.
func (win Window) queries(w Workload, now time.Time) []Query {
	qs := w.Queries(now)
	if win.Mode == WindowGrafana {
		return grafanaShape(qs)
	}
	return qs
}

// perRequest says whether every request has its own now (nothing built
// for one request serves the next).
func (win Window) perRequest() bool { return win.Mode == WindowShifted }

// request is the i-th request of a step of w: its queries at the
// request's now, taken in turn.
func (win Window) request(w Workload, c clock) Query {
	qs := win.queries(w, win.nowOf(w, c))
	return qs[c.i%uint64(len(qs))]
}

// firstRound is the requests a step starts with, one per query of the
// workload (as many as its first now yields), every request placed at the
// same wall clock: what verification asks of both targets.
func (win Window) firstRound(w Workload, runNow, wall time.Time) []Query {
	c := clock{runNow: runNow, began: wall, wall: wall}
	n := len(win.queries(w, win.nowOf(w, c)))
	out := make([]Query, 0, n)
	for i := range uint64(n) {
		c.i = i
		out = append(out, win.request(w, c))
	}
	return out
}
