// Package dedup keeps each stream's entries a set, as Loki's are: an entry
// equal to another of its stream (timestamp, line and structured
// metadata) is stored once. Loki drops such an entry when its ingester
// appends it and again when its queriers merge chunks, so an agent that
// retries a push it already delivered changes no answer.
//
// Within one push vloki drops repeats always (Within). Across pushes it
// can only when it is the only writer (Deduper): an entry newer than
// everything its stream holds is new; the others are looked up in
// VictoriaLogs, once the tenant's acknowledged pushes are searchable, and
// dropped when found. Pushes holding entries of one stream at
// overlapping times are serialised from that check until they are
// acknowledged, so two retries racing each other cannot both write;
// pushes of a stream over disjoint times go on at once.
package dedup

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// Within drops every entry equal to an earlier one of the same stream in
// streams (streams with equal labels are one stream).
func Within(streams []lokidata.Stream) []lokidata.Stream {
	if timesDistinct(streams) {
		return nonEmpty(streams)
	}
	seen := map[string]map[string]struct{}{}
	out := streams[:0]
	for _, s := range streams {
		key := s.LabelsKey()
		set := seen[key]
		if set == nil {
			set = map[string]struct{}{}
			seen[key] = set
		}
		kept := s.Entries[:0]
		for _, e := range s.Entries {
			k := Key(e)
			if _, dup := set[k]; !dup {
				set[k] = struct{}{}
				kept = append(kept, e)
			}
		}
		if s.Entries = kept; len(kept) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// timesDistinct reports pushes in which no two entries of one stream
// share a timestamp (each stream once): equal entries cannot be there, and
// no key (a copy of each line) need be built. Agents send a stream's
// entries in increasing time; an OTLP export's resources that map to one
// stream interleave theirs, whose times are sorted to be compared.
func timesDistinct(streams []lokidata.Stream) bool {
	labels := make(map[string]struct{}, len(streams))
	var times []int64
	for _, s := range streams {
		key := s.LabelsKey()
		if _, again := labels[key]; again {
			return false
		}
		labels[key] = struct{}{}
		if increasing(s.Entries) {
			continue
		}
		times = times[:0]
		for _, e := range s.Entries {
			times = append(times, e.TimestampNs)
		}
		slices.Sort(times)
		for i := 1; i < len(times); i++ {
			if times[i] == times[i-1] {
				return false
			}
		}
	}
	return true
}

func increasing(entries []lokidata.Entry) bool {
	for i := 1; i < len(entries); i++ {
		if entries[i].TimestampNs <= entries[i-1].TimestampNs {
			return false
		}
	}
	return true
}

// nonEmpty drops the streams without entries.
func nonEmpty(streams []lokidata.Stream) []lokidata.Stream {
	out := streams[:0]
	for _, s := range streams {
		if len(s.Entries) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// Key identifies an entry within its stream: timestamp, line and the set
// of its structured metadata.
func Key(e lokidata.Entry) string {
	md := append(lokidata.Labels(nil), e.StructuredMetadata...)
	sort.Slice(md, func(i, j int) bool { return md[i].Name < md[j].Name })
	var b strings.Builder
	b.WriteString(strconv.FormatInt(e.TimestampNs, 10))
	b.WriteByte(0)
	b.WriteString(e.Line)
	for _, l := range md {
		b.WriteByte(0)
		b.WriteString(l.Name)
		b.WriteByte('=')
		b.WriteString(l.Value)
	}
	return b.String()
}

// LookupFunc calls fn with the entries stored for exactly the stream ls
// in [from, to].
type LookupFunc func(ctx context.Context, t tenant.ID, ls lokidata.Labels, from, to int64, fn func(lokidata.Entry)) error

// Deduper drops entries a stream already holds.
type Deduper struct {
	// Newest is the newest timestamp the stream (by its label string) may
	// hold; false when unknown (every entry is then looked up).
	Newest func(t tenant.ID, key string) (int64, bool)
	Lookup LookupFunc
	// Held, when set, tells which of a stream's entry times it already
	// holds an entry at, from what vloki keeps of its own pushes; ok is
	// false when that is not known for all of them. An entry at a time
	// the stream does not hold cannot be a repeat, so it needs no read of
	// the storage (nor the flush before one).
	Held func(ctx context.Context, t tenant.ID, key string, times []int64) (held []bool, ok bool)
	// Wait returns once the tenant's acknowledged pushes are searchable.
	Wait func(context.Context, tenant.ID) error

	mu      sync.Mutex
	flights map[streamOf][]flightSpan // pushes in flight, by stream
}

// Begin waits for the pushes in flight that hold entries of the same
// streams at overlapping times, then drops the entries the streams
// already hold; done, once the push is acknowledged (or failed), lets the
// pushes waiting on it go on.
func (d *Deduper) Begin(ctx context.Context, t tenant.ID, streams []lokidata.Stream) (kept []lokidata.Stream, done func(), err error) {
	done = d.lock(t, streams)
	waited := false
	out := streams[:0]
	for _, s := range streams {
		from, to, any := d.candidates(ctx, t, s)
		if any {
			if !waited {
				if err := d.Wait(ctx, t); err != nil {
					done()
					return nil, func() {}, err
				}
				waited = true
			}
			if s, err = d.dropStored(ctx, t, s, from, to); err != nil {
				done()
				return nil, func() {}, err
			}
		}
		if len(s.Entries) > 0 {
			out = append(out, s)
		}
	}
	return out, done, nil
}

// candidates is the span of the entries that may repeat one the stream
// holds: not newer than all it holds and, where Held knows, at a time it
// holds an entry at; any is false when there are none.
func (d *Deduper) candidates(ctx context.Context, t tenant.ID, s lokidata.Stream) (from, to int64, any bool) {
	newest, known := d.Newest(t, s.LabelsKey())
	var times []int64
	for _, e := range s.Entries {
		if !known || e.TimestampNs <= newest {
			times = append(times, e.TimestampNs)
		}
	}
	if len(times) == 0 {
		return 0, 0, false
	}
	var held []bool
	if d.Held != nil {
		if h, ok := d.Held(ctx, t, s.LabelsKey(), times); ok {
			held = h
		}
	}
	for i, ts := range times {
		if held != nil && !held[i] {
			continue
		}
		if !any || ts < from {
			from = ts
		}
		if !any || ts > to {
			to = ts
		}
		any = true
	}
	return from, to, any
}

// dropStored drops the entries in [from, to] the stream already holds.
// What it keeps while reading the stored entries is the push's own
// candidates by timestamp: memory bounded by the push, however many
// entries the span holds. A stored entry's key is built only when its
// timestamp is a candidate's.
func (d *Deduper) dropStored(ctx context.Context, t tenant.ID, s lokidata.Stream, from, to int64) (lokidata.Stream, error) {
	type candidate struct {
		i   int
		key string
	}
	byTime := map[int64][]candidate{}
	for i, e := range s.Entries {
		if e.TimestampNs >= from && e.TimestampNs <= to {
			byTime[e.TimestampNs] = append(byTime[e.TimestampNs], candidate{i, Key(e)})
		}
	}
	dup := make([]bool, len(s.Entries))
	found := false
	err := d.Lookup(ctx, t, s.Labels, from, to, func(e lokidata.Entry) {
		cands := byTime[e.TimestampNs]
		if len(cands) == 0 {
			return
		}
		k := Key(e)
		for _, c := range cands {
			if c.key == k {
				dup[c.i], found = true, true
			}
		}
	})
	if err != nil || !found {
		return s, err
	}
	kept := s.Entries[:0]
	for i, e := range s.Entries {
		if !dup[i] {
			kept = append(kept, e)
		}
	}
	s.Entries = kept
	return s, nil
}

// lock waits until no push in flight holds an entry of these streams in
// the time span this push holds of them, then marks this push in flight
// until the returned function. Only entries at one timestamp can repeat
// each other, so pushes of a stream over disjoint spans (agents sending
// different hours, backfills beside live traffic) are written at once;
// overlapping ones one after the other, each seeing what the one before
// stored.
func (d *Deduper) lock(t tenant.ID, streams []lokidata.Stream) func() {
	spans := pushSpans(t, streams)
	for {
		d.mu.Lock()
		busy := d.overlapping(spans)
		if busy == nil {
			f := &flight{done: make(chan struct{})}
			if d.flights == nil {
				d.flights = map[streamOf][]flightSpan{}
			}
			for key, sp := range spans {
				d.flights[key] = append(d.flights[key], flightSpan{sp, f})
			}
			d.mu.Unlock()
			return func() { d.land(f, spans) }
		}
		d.mu.Unlock()
		<-busy.done
	}
}

// flight is a push being deduplicated and written; done is closed once it
// is acknowledged (or failed).
type flight struct{ done chan struct{} }

// flightSpan is the span of a stream's entries a flight holds.
type flightSpan struct {
	span [2]int64
	f    *flight
}

// streamOf names a stream of a tenant: its label string.
type streamOf struct {
	t   tenant.ID
	key string
}

// pushSpans is, per stream, the span of its entries in the push.
func pushSpans(t tenant.ID, streams []lokidata.Stream) map[streamOf][2]int64 {
	spans := make(map[streamOf][2]int64, len(streams))
	for _, s := range streams {
		if len(s.Entries) == 0 {
			continue
		}
		key := streamOf{t, s.LabelsKey()}
		sp, seen := spans[key]
		for _, e := range s.Entries {
			if !seen || e.TimestampNs < sp[0] {
				sp[0] = e.TimestampNs
			}
			if !seen || e.TimestampNs > sp[1] {
				sp[1] = e.TimestampNs
			}
			seen = true
		}
		spans[key] = sp
	}
	return spans
}

// overlapping is a flight holding entries of one of the streams within
// the span this push holds of it; nil when none does.
func (d *Deduper) overlapping(spans map[streamOf][2]int64) *flight {
	for key, sp := range spans {
		for _, fs := range d.flights[key] {
			if fs.span[0] <= sp[1] && sp[0] <= fs.span[1] {
				return fs.f
			}
		}
	}
	return nil
}

// land ends a flight: its spans are removed and the pushes waiting on it
// look again.
func (d *Deduper) land(f *flight, spans map[streamOf][2]int64) {
	d.mu.Lock()
	for key := range spans {
		kept := d.flights[key][:0]
		for _, fs := range d.flights[key] {
			if fs.f != f {
				kept = append(kept, fs)
			}
		}
		if len(kept) == 0 {
			delete(d.flights, key)
		} else {
			d.flights[key] = kept
		}
	}
	d.mu.Unlock()
	close(f.done)
}
