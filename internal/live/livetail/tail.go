// Package livetail runs the live part of a Loki tail: rows from pushes
// this vloki acknowledged and from VictoriaLogs' live tail go through the
// log query's stages (a logs.Collector) and leave as Loki's tailer
// releases them, each entry once, after the history the tail began with.
package livetail

import (
	"math"
	"sort"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/plan"
)

// Tail is the live part of a tail. Rows arrive from two sources — pushes
// this vloki acknowledged (RunPushed) and VictoriaLogs' own live tail
// (RunBackend) — run through the log query's stages, and wait until Take
// releases them as Loki's tailer does: in time order, once
// now > timestamp + delay_for.
//
// Rows that arrive before the history answer is known wait for it
// (SetHistory): an entry the history already sent is never sent twice,
// and a row from before the tail opened that the history's limit cut off
// is not resurrected.
type Tail struct {
	q     *plan.LogQuery
	start int64 // the tail's start: older rows belong to no answer
	delay time.Duration
	// ready has a value when Take has something to look at.
	ready chan struct{}

	mu       sync.Mutex
	col      *logs.Collector
	early    []sourcedRow
	histDone bool
	floor    int64 // backlog rows older than this are the history's
	held     []lokidata.Stream
	seen     *seenSet
	// remember keeps delivered entries' keys: with two sources, one entry
	// can arrive twice.
	remember bool
}

// sourcedRow is a row with where it came from.
type sourcedRow struct {
	row logrow.Row
	// backlog marks a row that may predate the tail (VictoriaLogs'
	// look-back, the push replay ring): the history may hold it.
	backlog bool
}

// New tails q from start (Unix ns) on, releasing entries delay after
// their timestamp; remember de-duplicates across two live sources.
func New(q *plan.LogQuery, categorize bool, start int64, delay time.Duration, remember bool) *Tail {
	// Loki's ingester sends pushed entries through an empty pipeline as
	// they came: labels the stream's own, structured metadata kept with
	// the entry (a v1 answer without categorize-labels then leaves it out,
	// a legacy one drops it), which is the categorized layout.
	req := logs.Request{Query: q, Limit: math.MaxInt, Direction: logs.Forward, Categorize: categorize || len(q.Stages) == 0, KeepParsed: true}
	return &Tail{
		q: q, start: start, delay: delay, ready: make(chan struct{}, 1),
		col: logs.NewCollector(req), seen: newSeenSet(), remember: remember, floor: start,
	}
}

// Ready signals that rows arrived (or the history was set).
func (tl *Tail) Ready() <-chan struct{} { return tl.ready }

func (tl *Tail) signal() {
	select {
	case tl.ready <- struct{}{}:
	default:
	}
}

// add takes one row from a source.
func (tl *Tail) add(r sourcedRow) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if !tl.histDone {
		tl.early = append(tl.early, r)
		return
	}
	tl.addLocked(r)
	tl.signal()
}

func (tl *Tail) addLocked(r sourcedRow) {
	if r.backlog && r.row.TimestampNs < tl.floor {
		return
	}
	tl.col.Add(&r.row)
}

// SetHistory records the entries the history sent (oldest first, as
// Entries lays them out); full says the history's limit cut it.
func (tl *Tail) SetHistory(entries []lokidata.Stream, full bool, now time.Time) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if full && len(entries) > 0 {
		// Older backlog rows were cut by the limit, not missed.
		tl.floor = entries[0].Entries[0].TimestampNs + 1
	}
	for _, e := range entries {
		tl.seen.add(entryKey(e), now.Add(historyMemory))
	}
	for _, r := range tl.early {
		tl.addLocked(r)
	}
	tl.early, tl.histDone = nil, true
	tl.signal()
}

// historyMemory is how long delivered entries are remembered: longer than
// any source can deliver an entry late (VictoriaLogs' tail looks 5 s
// back, plus delay_for; the push replay ring holds 3 s).
const historyMemory = 30 * time.Second

// Take returns the entries to send now, in time order (ties by stream
// labels), and when the first held one falls due (zero if none).
func (tl *Tail) Take(now time.Time) ([]lokidata.Stream, time.Time) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	res := tl.col.Result()
	tl.col = tl.col.Next()
	all := mergeByTime(tl.held, Entries(res.Streams))
	due := sort.Search(len(all), func(i int) bool { return !tl.releasable(all[i], now) })
	out := tl.unseen(all[:due], now)
	tl.held = append([]lokidata.Stream(nil), all[due:]...)
	tl.seen.prune(now)
	if len(tl.held) == 0 {
		return out, time.Time{}
	}
	return out, time.Unix(0, tl.held[0].Entries[0].TimestampNs).Add(tl.delay)
}

// releasable is Loki's rule: an entry leaves once now is after its
// timestamp plus delay_for (so entries stamped in the future wait).
func (tl *Tail) releasable(e lokidata.Stream, now time.Time) bool {
	return now.After(time.Unix(0, e.Entries[0].TimestampNs).Add(tl.delay))
}

// unseen drops entries already delivered, remembering the rest when two
// sources may deliver them again.
func (tl *Tail) unseen(entries []lokidata.Stream, now time.Time) []lokidata.Stream {
	out := entries[:0:0]
	for _, e := range entries {
		k := entryKey(e)
		if tl.seen.has(k) {
			continue
		}
		if tl.remember {
			tl.seen.add(k, now.Add(historyMemory))
		}
		out = append(out, e)
	}
	return out
}

// mergeByTime merges two lists in Entries order.
func mergeByTime(a, b []lokidata.Stream) []lokidata.Stream {
	if len(a) == 0 {
		return b
	}
	out := append(append(make([]lokidata.Stream, 0, len(a)+len(b)), a...), b...)
	sort.SliceStable(out, func(i, j int) bool { return tailLess(out[i], out[j]) })
	return out
}

// Entries lays entries out as Loki's tailer does: one stream object
// per entry, in time order (ties by stream labels).
func Entries(streams []lokidata.Stream) []lokidata.Stream {
	var out []lokidata.Stream
	for _, s := range streams {
		for _, e := range s.Entries {
			out = append(out, lokidata.Stream{Labels: s.Labels, Entries: []lokidata.Entry{e}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return tailLess(out[i], out[j]) })
	return out
}

func tailLess(a, b lokidata.Stream) bool {
	x, y := a.Entries[0].TimestampNs, b.Entries[0].TimestampNs
	if x != y {
		return x < y
	}
	return a.Labels.String() < b.Labels.String()
}
