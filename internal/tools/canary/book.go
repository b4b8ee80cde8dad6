package canary

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// state is where an entry stands.
type state uint8

const (
	pending   state = iota // sent, awaited on the tail
	received               // the tail delivered it
	wsMissing              // not on the tail within Wait: asked for by query
	found                  // the tail missed it, a query found it
	missing                // not found within MaxWait
	failed                 // its push failed
)

// entry is one line the checker sent; ts (nanoseconds) is also the
// line's first field, which identifies it.
type entry struct {
	ts          int64
	seq         int // place in send order
	backStamped bool
	sent        time.Time // counted as sent, just before its push
	acked       time.Time // push acknowledged; zero while in flight
	state       state
}

// book is the bookkeeping of what was sent and what came back, which
// loki-canary's documentation calls its internal array and its list of
// received entries.
type book struct {
	mu      sync.Mutex
	size    int
	wait    time.Duration
	maxWait time.Duration
	keep    time.Duration // how long settled entries are remembered

	entries map[int64]*entry
	order   []*entry // every remembered entry, in send order
	pending []*entry // awaited on the tail, in send order
	lastTS  int64
	seq     int // entries sent
	lastSeq int // the latest-sent entry the tail delivered

	r          Report
	deliveries []time.Duration // send to tail delivery, of entries delivered in time
	logf       func(string, ...any)
}

func newBook(size int, wait, maxWait, keep time.Duration, logf func(string, ...any)) *book {
	return &book{size: size, wait: wait, maxWait: maxWait, keep: keep, entries: map[int64]*entry{}, logf: logf}
}

// line is the text of the entry stamped ts: the timestamp, then filler to
// size bytes, as loki-canary writes its lines.
func line(ts int64, size int) string {
	s := strconv.FormatInt(ts, 10) + " "
	if len(s) >= size {
		return s
	}
	return s + strings.Repeat("p", size-len(s))
}

// finding records a problem (kept for the report, at most 100).
func (b *book) finding(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(b.r.Findings) < 100 {
		b.r.Findings = append(b.r.Findings, msg)
	}
	if b.logf != nil {
		b.logf("%s", msg)
	}
}

// send counts a new entry as sent at now, stamped back by back (0: now).
// Timestamps are unique; in-order ones strictly increase.
func (b *book) send(now time.Time, back time.Duration) *entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	ts := now.Add(-back).UnixNano()
	if back == 0 && ts <= b.lastTS {
		ts = b.lastTS + 1
	}
	for b.entries[ts] != nil {
		ts++
	}
	if back == 0 {
		b.lastTS = ts
	}
	b.seq++
	e := &entry{ts: ts, seq: b.seq, backStamped: back > 0, sent: now}
	b.entries[ts] = e
	b.order = append(b.order, e)
	b.pending = append(b.pending, e)
	b.r.Entries++
	if e.backStamped {
		b.r.BackStamped++
	}
	return e
}

// acked records that e's push was acknowledged at now.
func (b *book) acked(e *entry, now time.Time) {
	b.mu.Lock()
	e.acked = now
	b.mu.Unlock()
}

// pushFailed records that e could not be pushed: it is awaited no more.
func (b *book) pushFailed(e *entry, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unpend(e)
	e.state = failed
	b.r.PushErrors++
	b.finding("push of entry %d failed: %v", e.ts, err)
}

// unpend removes e from the pending list.
func (b *book) unpend(e *entry) {
	if i := slices.Index(b.pending, e); i >= 0 {
		b.pending = slices.Delete(b.pending, i, i+1)
	}
}

// receive takes an entry the tail delivered at now: its timestamp and its
// line.
func (b *book) receive(ts int64, text string, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	first, _, _ := strings.Cut(text, " ")
	lts, err := strconv.ParseInt(first, 10, 64)
	if err != nil {
		b.r.Unexpected++
		b.finding("received a line that is not the canary's: %.80q", text)
		return
	}
	e := b.entries[lts]
	if e == nil || lts != ts || text != line(lts, b.size) {
		b.r.Unexpected++
		switch {
		case e == nil:
			b.finding("received an unexpected entry with ts %d", lts)
		case lts != ts:
			b.finding("received entry %d stamped %d", lts, ts)
		default:
			b.finding("received entry %d with another line: %.80q", lts, text)
		}
		return
	}
	switch e.state {
	case pending:
		b.unpend(e)
		if e.seq < b.lastSeq {
			b.r.OutOfOrder++
		}
		b.lastSeq = max(b.lastSeq, e.seq)
		e.state = received
		b.r.ResponseLatencyCount++
		b.r.ResponseLatencySum += now.Sub(time.Unix(0, ts)).Seconds()
		b.deliveries = append(b.deliveries, now.Sub(e.sent))
	case received:
		b.r.Duplicates++
		b.finding("received entry %d again", ts)
	default:
		// Delivered after it was given up on the tail (or after a failed
		// push): loki-canary counts it unexpected.
		b.r.Unexpected++
		b.finding("received entry %d after %s, past the wait", ts, now.Sub(e.sent).Round(time.Millisecond))
		if e.state != failed {
			e.state = received
		}
	}
}

// prune gives up waiting on the tail for the entries sent more than Wait
// before now (all of them when all is set): each counts websocket-missing
// and is asked for by query from then on.
func (b *book) prune(now time.Time, all bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	kept := b.pending[:0]
	for _, e := range b.pending {
		if !all && now.Sub(e.sent) < b.wait {
			kept = append(kept, e)
			continue
		}
		e.state = wsMissing
		b.r.WebsocketMissing++
		b.finding("websocket failed to receive entry %d within %s", e.ts, now.Sub(e.sent).Round(time.Millisecond))
	}
	clear(b.pending[len(kept):])
	b.pending = kept
	b.forget(now)
}

// forget drops settled entries older than keep.
func (b *book) forget(now time.Time) {
	n := 0
	for n < len(b.order) {
		e := b.order[n]
		if now.Sub(e.sent) < b.keep || e.state == pending || e.state == wsMissing {
			break
		}
		delete(b.entries, e.ts)
		n++
	}
	if n > 0 {
		b.order = slices.Delete(b.order, 0, n)
	}
}

// lost are the entries to ask for by query, by timestamp.
func (b *book) lost() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []int64
	for _, e := range b.order {
		if e.state == wsMissing {
			out = append(out, e.ts)
		}
	}
	slices.Sort(out)
	return out
}

// resolve takes what a query found of the entries the tail missed; those
// still not found after MaxWait (all of them when giveUp is set) count
// missing.
func (b *book) resolve(got map[int64]string, now time.Time, giveUp bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.order {
		if e.state != wsMissing {
			continue
		}
		if text, ok := got[e.ts]; ok && text == line(e.ts, b.size) {
			e.state = found
			b.r.QueryFound++
			continue
		}
		if giveUp || now.Sub(e.sent) >= b.maxWait {
			e.state = missing
			b.r.Missing++
			b.finding("failed to receive entry %d (sent %s before, not on the tail nor found by queries)", e.ts, now.Sub(e.sent).Round(time.Millisecond))
		}
	}
}

// waiting is how many entries are still awaited on the tail.
func (b *book) waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

// latest is the entry last acknowledged, nil if none.
func (b *book) latest() *entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.order) - 1; i >= 0; i-- {
		if e := b.order[i]; !e.acked.IsZero() && e.state != failed {
			return e
		}
	}
	return nil
}

// window counts the entries stamped in (from, to]: lo those acknowledged
// before ackedBy, hi all sent before sentBy whose push did not fail —
// what a count over that window must find, at least and at most.
func (b *book) window(from, to int64, ackedBy, sentBy time.Time) (lo, hi int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.order {
		if e.ts <= from || e.ts > to || e.state == failed || !e.sent.Before(sentBy) {
			continue
		}
		hi++
		if !e.acked.IsZero() && e.acked.Before(ackedBy) {
			lo++
		}
	}
	return lo, hi
}

// update changes the report under the lock.
func (b *book) update(f func(r *Report)) {
	b.mu.Lock()
	f(&b.r)
	b.mu.Unlock()
}

// report is a copy of the figures so far.
func (b *book) report() Report {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.r
	r.Findings = slices.Clone(r.Findings)
	d := slices.Clone(b.deliveries)
	slices.Sort(d)
	if len(d) > 0 {
		r.DeliveryP50 = d[len(d)/2]
		r.DeliveryP99 = d[len(d)*99/100]
		r.DeliveryMax = d[len(d)-1]
	}
	return r
}
