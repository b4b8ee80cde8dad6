package frontend

import (
	"container/list"
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/metric"
)

// Log queries over moving windows (issue 28). A backward log query's
// answer is the newest `limit` entries of its range. An answer without
// entries of one stream sharing a timestamp holds every entry of a known
// interval: all of its range when it has fewer than `limit` entries, else
// everything newer than its oldest entry. The frozen part of that interval
// (what FrozenSamples freezes for metric inputs: up to now with vloki the
// sole writer, cut by later pushes; else before now minus the freshness
// window) is kept per query, merged with the query's other kept spans
// (recent_set.go), and a later request of the same query whose range ends
// inside or after one of them reads from storage only what is newer,
// taking the rest from memory. Ties are left to the storage path, whose
// frontend merge decides them (merge_logs.go).

// recentEntry is one entry of a kept answer with its stream.
type recentEntry struct {
	key    string
	labels lokidata.Labels
	e      lokidata.Entry
}

// RecentLogs keeps, per query, the frozen spans of its answers as a set
// of disjoint intervals, least recently used query out first, within a
// byte bound.
type RecentLogs struct {
	max int64
	mu  sync.Mutex
	lru *list.List // of *recentItem, most recent first
	at  map[string]*list.Element
	// used is the bytes held; hits counts answers taken from memory.
	used, hits int64
	fills      recentFills
}

type recentItem struct {
	key   string
	set   recentSet
	bytes int64
}

// NewRecentLogs returns a store of at most maxBytes. One query's spans
// may take all of it: entries weigh 0.4–3 KiB each with their labels (a
// `| json` select's entry is a stream of its own), and a select of 5,000
// over windows moved back by up to 2 hours needs ~50 MB; held to a
// quarter of 64 MiB it missed two times in three.
func NewRecentLogs(maxBytes int64) *RecentLogs {
	return &RecentLogs{max: maxBytes, lru: list.New(), at: map[string]*list.Element{}}
}

// Usage is the bytes held, the spans held and the answers taken from
// memory.
func (r *RecentLogs) Usage() (bytes, spans, hits int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for el := r.lru.Front(); el != nil; el = el.Next() {
		spans += int64(len(el.Value.(*recentItem).set))
	}
	return r.used, spans, r.hits
}

func (r *RecentLogs) get(key string) recentSet {
	r.mu.Lock()
	defer r.mu.Unlock()
	el, ok := r.at[key]
	if !ok {
		return nil
	}
	r.lru.MoveToFront(el)
	return el.Value.(*recentItem).set
}

// add merges span s into key's set, dropping the set's oldest spans past
// the bound, then the least recently used queries' sets.
func (r *RecentLogs) add(key string, s *recentSpan, frozen *metric.Frozen) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var set recentSet
	if el, ok := r.at[key]; ok {
		it := el.Value.(*recentItem)
		set = it.set
		r.used -= it.bytes
		r.lru.Remove(el)
		delete(r.at, key)
	}
	set = set.valid(frozen).with(s)
	n := set.size()
	for n > r.max && len(set) > 0 {
		n -= set[0].size()
		set = set[1:]
	}
	if len(set) == 0 {
		return
	}
	r.at[key] = r.lru.PushFront(&recentItem{key, set, n})
	r.used += n
	for r.used > r.max {
		last := r.lru.Back()
		it := last.Value.(*recentItem)
		r.lru.Remove(last)
		delete(r.at, it.key)
		r.used -= it.bytes
	}
}

func (r *RecentLogs) hit() {
	r.mu.Lock()
	r.hits++
	r.mu.Unlock()
}

// recentLogs answers a backward log query from its kept spans (and a read
// of what is newer than them), or from storage as before, keeping the
// answer's frozen span; frozen says what may be kept (nil: nothing), name
// names the query's spans (spanName; empty: none kept).
func (f *Frontend) recentLogs(ctx context.Context, run *engine.LogRun, name string, frozen *metric.Frozen) (*logs.Result, error) {
	req := run.Request()
	store := f.cfg.RecentLogs
	if store == nil || frozen == nil || name == "" || req.Direction != logs.Backward || req.IntervalNs != 0 ||
		req.Query.Foreign != nil || req.Limit <= 0 || req.End-req.Start <= 1 || f.nearRetention(req.Start) {
		return answerLogs(ctx, run)
	}
	key := frozen.Prefix + "\x00" + name
	kept := store.get(key).valid(frozen).completing(req)
	if kept == nil && store.fills.waitBehind(ctx, key, req.Start, req.End, int64(f.cfg.MaxCacheFreshness)) {
		kept = store.get(key).valid(frozen).completing(req)
	}
	if kept != nil {
		res, span, ok, err := answerFromSpan(ctx, run, kept, func(lo, hi int64) bool { return f.noRowsIn(ctx, run, lo, hi) })
		if err != nil {
			return nil, err
		}
		if ok {
			store.hit()
			if span != nil {
				keepSpan(store, key, span, frozen)
			}
			return res, nil
		}
	}
	finish := store.fills.begin(key, req.Start, req.End)
	defer finish()
	a, err := answerWalked(ctx, run)
	if err != nil {
		return nil, err
	}
	if span, err := spanOf(ctx, a, req); err == nil && span != nil {
		keepSpan(store, key, span, frozen)
	}
	return a.res, nil
}

// nearRetention: rows from start on may be deleted by the storage's
// retention within a day, which no push announces.
func (f *Frontend) nearRetention(start int64) bool {
	r := f.cfg.Retention
	return r > 0 && start < f.now().Add(-r+24*time.Hour).UnixNano()
}

// spanName names a log query's kept spans: its text and every option
// that changes the lines read (patterns read deleted lines and one
// metadata field of the same selector). Empty when the query has no text.
func spanName(text string, showDeleted bool, req logs.Request) string {
	if text == "" {
		return ""
	}
	return text + "\x00" + boolKey(req.Categorize, req.KeepParsed) + boolKey(showDeleted, req.Metadata != nil) +
		"\x00" + strings.Join(req.Metadata, "\x00")
}

func boolKey(a, b bool) string {
	k := []byte("00")
	if a {
		k[0] = '1'
	}
	if b {
		k[1] = '1'
	}
	return string(k)
}

// keepSpan stores the frozen part of a span read after frozen.Seq.
func keepSpan(store *RecentLogs, key string, s *recentSpan, frozen *metric.Frozen) {
	// An empty span is kept too: it tells that its interval holds nothing.
	if s = s.cut(s.lo, frozen.Before); s == nil {
		return
	}
	s.seq = frozen.Seq
	store.add(key, s, frozen)
}

// spanOf is the span an answer covers completely, nil when entries of
// one stream share a timestamp (the frontend's merge orders those) or
// the frontend merged it.
func spanOf(ctx context.Context, a logAnswer, req logs.Request) (*recentSpan, error) {
	if a.walked == nil || sharesTimestamps(a.res.Streams) {
		return nil, nil
	}
	whole := true
	if a.res.Stats.EntriesReturned >= req.Limit || entryCount(a.res.Streams) >= req.Limit {
		var err error
		if whole, err = a.tieFree(ctx); err != nil {
			return nil, err
		}
	}
	return answerSpan(a.res, req, whole), nil
}

// answerSpan is the span of an answer without ties inside a stream: its
// whole range under the limit; at the limit everything from its oldest
// entry on when the limit cut no timestamp (whole), else what is newer.
func answerSpan(res *logs.Result, req logs.Request, whole bool) *recentSpan {
	entries := flatten(res.Streams)
	lo := req.Start
	if len(entries) >= req.Limit {
		lo = entries[len(entries)-1].e.TimestampNs
		if !whole {
			// Entries at the oldest timestamp may be missing: the span
			// starts after it (sized once, without them).
			lo++
			for len(entries) > 0 && entries[len(entries)-1].e.TimestampNs < lo {
				entries = entries[:len(entries)-1]
			}
		}
		if req.End <= lo {
			return nil
		}
	}
	return newSpan(lo, req.End, entries)
}

func entryCount(streams []lokidata.Stream) int {
	n := 0
	for _, s := range streams {
		n += len(s.Entries)
	}
	return n
}

// flatten lists an answer's entries newest first (streams in label order
// for equal timestamps: different streams, any order is the same answer).
func flatten(streams []lokidata.Stream) []recentEntry {
	n := 0
	for _, s := range streams {
		n += len(s.Entries)
	}
	out := make([]recentEntry, 0, n) // kept as is: no spare capacity
	for _, s := range streams {
		key := s.Labels.String()
		for _, e := range s.Entries {
			out = append(out, recentEntry{key: key, labels: s.Labels, e: e})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].e.TimestampNs > out[j].e.TimestampNs })
	return out
}

// answerFromSpan answers the query from the kept span and a storage read
// of the part of its range newer than the span; ok is false when the two
// do not determine the answer (the kept span misses older entries the
// limit needs, or the limit cuts through entries sharing a timestamp).
// span is what the answer then covers completely.
func answerFromSpan(ctx context.Context, run *engine.LogRun, kept *recentSpan, noRows func(lo, hi int64) bool) (*logs.Result, *recentSpan, bool, error) {
	req := run.Request()
	var newer []recentEntry
	var stats logs.Stats
	top := min(req.End, kept.hi)
	if lo := max(req.Start, kept.hi); req.End > kept.hi && noRows(lo, req.End) {
		top = lo // nothing newer: no read
	} else if req.End > kept.hi {
		res, walked, err := run.Window(ctx, lo, req.End)
		if err != nil {
			return nil, nil, false, err
		}
		if sharesTimestamps(res.Streams) {
			return nil, nil, false, nil
		}
		stats = res.Stats
		newer = flatten(res.Streams)
		if len(newer) >= req.Limit {
			cut, err := walked.CutsTie(ctx)
			if err != nil || cut {
				return nil, nil, false, err
			}
			// The read alone answers; what it covers is kept (apart from
			// the kept span when a gap lies between them).
			top := newer[:req.Limit]
			return assemble(stats, top), newSpan(top[len(top)-1].e.TimestampNs, req.End, top), true, nil
		}
		top = lo
	}
	need := req.Limit - len(newer)
	from := kept.newest(req.Start, top, need+1)
	switch {
	case len(from) > need:
		if from[need].e.TimestampNs == from[need-1].e.TimestampNs {
			return nil, nil, false, nil // the limit cuts a tie
		}
		from = from[:need]
	case len(from) < need && req.Start < kept.lo:
		return nil, nil, false, nil // older entries may be missing
	}
	if req.End <= kept.hi {
		return assemble(stats, newer, from), nil, true, nil // nothing read: the kept span stays
	}
	// The read covered [kept.hi, End) completely (fewer than limit).
	span := kept.withNewer(newer, req.End)
	return assemble(stats, newer, from), span, true, nil
}

// noRowsIn reports that the stream index (vloki the sole writer) holds
// every entry of [lo, hi) and none of the query's streams has one there:
// a read would find nothing (a quiet service's panel refreshing).
func (f *Frontend) noRowsIn(ctx context.Context, run *engine.LogRun, lo, hi int64) bool {
	ix := f.cfg.Indexed
	if ix == nil || hi <= lo || run.Request().Query.Foreign != nil {
		return false
	}
	return metric.NoEntries(ctx, ix, run.Tenant(), run.Request().Query.Selector, lo, hi-1)
}

// assemble groups entries (newest first) into streams in label order, as
// the collector answers.
func assemble(stats logs.Stats, parts ...[]recentEntry) *logs.Result {
	// Each stream's entries in one allocation of their size: grown by
	// appends they took several, twice their size in all.
	counts := map[string]int{}
	n := 0
	for _, entries := range parts { // in turn, not joined: no copy of them all
		n += len(entries)
		for _, r := range entries {
			counts[r.key]++
		}
	}
	byKey := make(map[string]*lokidata.Stream, len(counts))
	keys := make([]string, 0, len(counts))
	for _, entries := range parts {
		for _, r := range entries {
			s, ok := byKey[r.key]
			if !ok {
				s = &lokidata.Stream{Labels: r.labels, Entries: make([]lokidata.Entry, 0, counts[r.key])}
				byKey[r.key] = s
				keys = append(keys, r.key)
			}
			s.Entries = append(s.Entries, r.e)
		}
	}
	sort.Strings(keys)
	out := &logs.Result{Streams: make([]lokidata.Stream, 0, len(keys)), Stats: stats}
	for _, k := range keys {
		out.Streams = append(out.Streams, *byKey[k])
	}
	out.Stats.EntriesReturned = n
	return out
}
