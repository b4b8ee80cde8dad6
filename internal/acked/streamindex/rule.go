package streamindex

import (
	"context"
	"sort"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
)

// LabelRule is what Loki's label answers over recent ranges depend on
// besides the pushes (docs/loki-label-index.md): its ingester keeps a
// stream in memory until it has been idle for ChunkIdle (flushed at the
// next flush check), and lists every in-memory stream for any range;
// flushed chunks are listed through the index units they land in. A zero
// ChunkIdle turns the rule off: label answers then hold the whole UTC
// days the range touches.
type LabelRule struct {
	// ChunkIdle is Loki's chunk_idle_period; FlushCheck its
	// flush_check_period.
	ChunkIdle, FlushCheck time.Duration
	// Lookback is query_store_max_look_back_period as Loki resolves it:
	// negative, the ingester (memory) is asked for every range; positive,
	// only for ranges ending after now − Lookback, and detected labels
	// read the store before it.
	Lookback time.Duration
}

// On reports whether label answers follow the rule.
func (r LabelRule) On() bool { return r.ChunkIdle > 0 }

const (
	// headPeriod is the TSDB head's rotation period (Loki's
	// defaultRotationPeriod, not configurable).
	headPeriod = int64(15 * time.Minute)
	// mergeLag is when a rotated period's per-day files are taken to be
	// merged into their day's unit, after the period's end. Loki merges
	// them at its compactor's next run (every 10 min from its own start)
	// and its ingester sees the result at its next resync (every 5 min):
	// 1 to 16 min, not determined by the pushes. 13 min is what the
	// recorded experiment showed (docs/loki-label-index.md); the window
	// is a known gap.
	mergeLag = int64(13 * time.Minute)
	day      = int64(24 * time.Hour)
)

// span is a chunk's entry times (Unix ns).
type span struct{ Min, Max int64 }

func (s span) with(o span) span { return span{min(s.Min, o.Min), max(s.Max, o.Max)} }

// chunk is a flushed chunk not yet merged into its day units: its flush
// wall time and entry times.
type chunk struct {
	At int64 `json:"at"`
	span
}

// flushAt is when Loki flushes a chunk last pushed at wall time push.
func (r LabelRule) flushAt(push int64) int64 {
	return push + int64(r.ChunkIdle) + int64(r.FlushCheck)
}

// rotated is the end of the head period a chunk flushed at wall time at
// landed in: its per-day files appear then.
func rotated(at int64) int64 { return (floorDiv(at, headPeriod) + 1) * headPeriod }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// days calls fn with every UTC day s touches (a chunk crossing midnight
// is indexed in both day tables, with its full bounds).
func (s span) days(fn func(d int64)) {
	for d := floorDiv(s.Min, day); d <= floorDiv(s.Max, day); d++ {
		fn(d)
	}
}

// pushedAt records a push of entries e at wall time now into the
// stream's open chunk, flushing the open chunk first when it went idle.
func (ix *Index) pushedAt(tn *tenantIndex, st *stream, now int64, e span) {
	r := ix.cfg.Labels
	switch {
	case st.lastPush == 0:
		st.open = e
	case now >= r.flushAt(st.lastPush):
		st.flushed = append(st.flushed, chunk{At: r.flushAt(st.lastPush), span: st.open})
		st.open = e
	default:
		st.open = st.open.with(e)
	}
	st.lastPush = now
	ix.mergeLocked(tn, st, now)
}

// mergeLocked moves the stream's chunks whose period files were merged
// by now into the tenant's day units.
func (ix *Index) mergeLocked(tn *tenantIndex, st *stream, now int64) {
	kept := st.flushed[:0]
	for _, c := range st.flushed {
		if now < rotated(c.At)+mergeLag {
			kept = append(kept, c)
			continue
		}
		tn.addToDays(st, c.span)
	}
	st.flushed = kept
}

// addToDays indexes s of the stream in each day unit it touches.
func (tn *tenantIndex) addToDays(st *stream, s span) {
	s.days(func(d int64) {
		if b, ok := tn.days[d]; ok {
			tn.days[d] = b.with(s)
		} else {
			tn.days[d] = s
		}
	})
	st.addDays(floorDiv(s.Min, day), floorDiv(s.Max, day))
}

// dayRun is the UTC days First to Last (day numbers since the epoch).
type dayRun struct{ First, Last int64 }

// addDays puts the days first to last in the stream's runs, merging the
// runs they touch or adjoin.
func (st *stream) addDays(first, last int64) {
	merged := dayRun{first, last}
	kept := st.days[:0:0]
	for _, r := range st.days {
		if r.Last+1 < merged.First || merged.Last+1 < r.First {
			kept = append(kept, r)
			continue
		}
		merged = dayRun{min(r.First, merged.First), max(r.Last, merged.Last)}
	}
	kept = append(kept, merged)
	sort.Slice(kept, func(i, j int) bool { return kept[i].First < kept[j].First })
	st.days = kept
}

// inDays reports whether one of the stream's days is in hit.
func (st *stream) inDays(hit []int64) bool {
	for _, r := range st.days {
		for _, d := range hit {
			if r.First <= d && d <= r.Last {
				return true
			}
		}
	}
	return false
}

// unit is an index unit being built: the bounds of its chunks and its
// streams.
type unit struct {
	span
	streams map[*stream]struct{}
}

func (u *unit) add(st *stream, s span) {
	if u.streams == nil {
		u.span, u.streams = s, map[*stream]struct{}{}
	}
	u.span = u.span.with(s)
	u.streams[st] = struct{}{}
}

// overlaps: a unit is read when its bounds overlap [start, end).
func (s span) overlaps(start, end int64) bool { return s.Min < end && s.Max >= start }

// unitKey names a unit of flushed chunks not yet merged: a period's
// head, or a period's file of one UTC day.
type unitKey struct {
	period, day int64
	head        bool
}

// view is the tenant's state at wall time now, as Loki's ingester and
// index hold it: the in-memory streams, the heads and per-period files,
// and the day units' chunks merged by now but not yet in tenant.days.
type view struct {
	memory []*stream
	recent map[unitKey]*unit
	later  map[int64]*unit
}

func (ix *Index) viewAt(tn *tenantIndex, now int64) view {
	r := ix.cfg.Labels
	v := view{recent: map[unitKey]*unit{}, later: map[int64]*unit{}}
	for _, st := range tn.streams {
		for _, c := range st.flushed {
			v.place(st, c, now)
		}
		switch {
		case st.lastPush == 0:
		case now < r.flushAt(st.lastPush):
			v.memory = append(v.memory, st)
		default:
			v.place(st, chunk{At: r.flushAt(st.lastPush), span: st.open}, now)
		}
	}
	return v
}

// place puts a flushed chunk in the units that hold it at now.
func (v view) place(st *stream, c chunk, now int64) {
	if now < c.At {
		return // not flushed yet (restored ahead of the clock)
	}
	rot := rotated(c.At)
	p := rot/headPeriod - 1
	if now < rot+headPeriod { // the head, then the previous head
		v.unit(unitKey{period: p, head: true}).add(st, c.span)
	}
	switch {
	case now >= rot+mergeLag:
		c.days(func(d int64) {
			if v.later[d] == nil {
				v.later[d] = &unit{}
			}
			v.later[d].add(st, c.span)
		})
	case now >= rot:
		c.days(func(d int64) { v.unit(unitKey{period: p, day: d}).add(st, c.span) })
	}
}

func (v view) unit(k unitKey) *unit {
	u := v.recent[k]
	if u == nil {
		u = &unit{}
		v.recent[k] = u
	}
	return u
}

// stored calls fn with every stream of a unit overlapping [start, end)
// (a stream may come more than once).
func (v view) stored(tn *tenantIndex, start, end int64, fn func(*stream)) {
	for _, u := range v.recent {
		if u.overlaps(start, end) {
			u.each(fn)
		}
	}
	var hit []int64
	for d, s := range tn.days {
		if late := v.later[d]; late != nil {
			s = s.with(late.span)
		}
		if s.overlaps(start, end) {
			hit = append(hit, d)
			v.later[d].each(fn)
		}
	}
	for d, late := range v.later {
		if _, ok := tn.days[d]; !ok && late.overlaps(start, end) {
			late.each(fn)
		}
	}
	if len(hit) == 0 {
		return
	}
	for _, st := range tn.streams {
		if st.inDays(hit) {
			fn(st)
		}
	}
}

func (u *unit) each(fn func(*stream)) {
	if u == nil {
		return
	}
	for st := range u.streams {
		fn(st)
	}
}

// Range is a label request's range and selector as asked (Unix ns; the
// end exclusive, as Loki's index reads it).
type Range struct {
	Matchers   []*logql.Matcher
	Start, End int64
}

// ruleApplies reports whether the rule can answer for the tenant from
// start on: it is on, and the index saw every row of the UTC days from
// start's on (a unit of a day holds every stream flushed into it).
func (ix *Index) ruleApplies(ctx context.Context, t tenant.ID, start int64) (bool, error) {
	if !ix.cfg.Labels.On() {
		return false, nil
	}
	return ix.KnowsFrom(ctx, t, floorDiv(start, day)*day)
}

// Recent returns the label sets of the streams Loki lists for label
// names and values over r at the index's clock: in-memory streams (when
// the lookback lets the ingester be asked) and every stream of an index
// unit overlapping the range; ok is false when the rule cannot answer.
func (ix *Index) Recent(ctx context.Context, t tenant.ID, r Range) (streams []lokidata.Labels, ok bool, err error) {
	now := ix.cfg.Now().UnixNano()
	lb := int64(ix.cfg.Labels.Lookback)
	memory := lb < 0 || r.End > now-lb
	return ix.recent(ctx, t, r, now, memory, &r)
}

// Detected returns the label sets of the streams Loki's detected labels
// read over r: the in-memory streams (when the ingester is asked), and
// with a positive lookback the units overlapping [start, now − lookback]
// (the querier's store range); ok as Recent.
func (ix *Index) Detected(ctx context.Context, t tenant.ID, r Range) (streams []lokidata.Labels, ok bool, err error) {
	now := ix.cfg.Now().UnixNano()
	lb := int64(ix.cfg.Labels.Lookback)
	memory := lb < 0 || r.End > now-lb
	var store *Range
	if lb >= 0 && r.Start < now-lb {
		store = &Range{Start: r.Start, End: min(r.End, now-lb)}
	}
	return ix.recent(ctx, t, r, now, memory, store)
}

// recent collects the matching streams of memory (when asked) and of
// the units overlapping store's range (nil: none), at wall time now.
func (ix *Index) recent(ctx context.Context, t tenant.ID, r Range, now int64, memory bool, store *Range) ([]lokidata.Labels, bool, error) {
	if ok, err := ix.ruleApplies(ctx, t, r.Start); !ok || err != nil {
		return nil, false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tn := ix.tenants[t]
	if tn == nil {
		return nil, true, nil
	}
	if tn.full {
		return nil, false, nil
	}
	v := ix.viewAt(tn, now)
	seen := map[*stream]struct{}{}
	add := func(st *stream) {
		if _, ok := seen[st]; !ok && logql.MatchLabels(r.Matchers, st.labels.Get) {
			seen[st] = struct{}{}
		}
	}
	if memory {
		for _, st := range v.memory {
			add(st)
		}
	}
	if store != nil {
		v.stored(tn, store.Start, store.End, add)
	}
	out := make([]lokidata.Labels, 0, len(seen))
	for st := range seen {
		out = append(out, st.labels)
	}
	return out, true, nil
}

// Values are the sorted label names (name "") or values of name of
// label sets, as the index answers them.
func Values(streams []lokidata.Labels, name string) []string {
	set := map[string]struct{}{}
	for _, ls := range streams {
		contribute(ls, name, func(v string) { set[v] = struct{}{} })
	}
	return sortedKeys(set)
}

func sortedKeys(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// RuleOn reports whether label answers follow the LabelRule.
func (ix *Index) RuleOn() bool { return ix.cfg.Labels.On() }
