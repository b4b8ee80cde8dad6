package frontend

import (
	"context"
	"slices"
	"sync"
)

// recentFills are the log queries reading their answer from storage now,
// to keep its frozen span. A request whose window is one of theirs moved
// forward by less than the freshness window (a dashboard's viewers
// refreshing together, patterns asked by several at once) waits for that
// read and then takes the span, reading only what is newer: without the
// wait, N such requests arriving cold read the whole window N times at
// once (at 5 M lines a day, patterns on an external VictoriaLogs held
// ~100 MB each).
type recentFills struct {
	mu sync.Mutex
	at map[string][]*recentFill
}

// recentFill is one read in flight: its window [start, end) and a channel
// closed when its span is kept (or it failed).
type recentFill struct {
	start, end int64
	done       chan struct{}
}

// begin registers a read of key over [start, end); finish must be called
// once its span is kept or the read failed.
func (fs *recentFills) begin(key string, start, end int64) (finish func()) {
	f := &recentFill{start: start, end: end, done: make(chan struct{})}
	fs.mu.Lock()
	if fs.at == nil {
		fs.at = map[string][]*recentFill{}
	}
	fs.at[key] = append(fs.at[key], f)
	fs.mu.Unlock()
	return func() {
		fs.mu.Lock()
		if list := slices.DeleteFunc(fs.at[key], func(g *recentFill) bool { return g == f }); len(list) > 0 {
			fs.at[key] = list
		} else {
			delete(fs.at, key)
		}
		fs.mu.Unlock()
		close(f.done)
	}
}

// waitBehind waits for a read of key whose window starts at or before
// start and ends at or before end, less than reach before it; it reports
// whether it waited (false: none, or ctx ended first).
func (fs *recentFills) waitBehind(ctx context.Context, key string, start, end, reach int64) bool {
	fs.mu.Lock()
	var ahead *recentFill
	for _, f := range fs.at[key] {
		if f.start <= start && f.end <= end && end-f.end < reach {
			ahead = f
			break
		}
	}
	fs.mu.Unlock()
	if ahead == nil {
		return false
	}
	select {
	case <-ahead.done:
		return true
	case <-ctx.Done():
		return false
	}
}
