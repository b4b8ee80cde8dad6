// Package streamindex answers label names and label values from memory,
// exactly, when vloki is the only writer of its storage (the embedded
// engine): it keeps, per tenant, every stream vloki acknowledged with the
// oldest and newest timestamp pushed to it.
//
// With a LabelRule (rule.go) it also models, from each push's wall time,
// what Loki's ingester holds in memory and which index units its flushed
// chunks are in, and answers label names, values and detected labels over
// recent ranges as Loki does (Recent, Detected); Answer is then the
// fallback for whole UTC days.
//
// It also keeps every acknowledged entry's time and line length (at most
// MaxLines, the older ones dropped first), so volumes over the ranges it
// covers are summed from memory (Lines).
//
// A stream has a row in [start, end] for sure when its oldest or newest
// timestamp lies there, and for sure not when its entries all lie outside
// ([min, max] misses the range). Otherwise (its entries straddle the range)
// the index cannot tell; an answer is given only when no such undecided
// stream could add a name or value the decided ones do not already give.
//
// Rows stored before the index began (an earlier run) are not in it: each
// tenant has a horizon, the newest timestamp of any row the index may not
// know, and a request is answered from memory only when it starts after
// that horizon. The horizon is read from the storage the first time a
// tenant is asked (the newest row it holds then), or restored from the
// file a clean shutdown wrote (Save, Load). A push that fails after the
// storage may have taken some of its rows clears the tenant's horizon, so
// it is read again.
//
// Bounded: at most MaxStreams streams across tenants; a tenant whose new
// stream finds the index full is answered by the storage from then on.
package streamindex

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
)

// HorizonFunc reads the newest timestamp (Unix ns) of the tenant's rows
// in storage; ok is false when it holds none.
type HorizonFunc func(ctx context.Context, t tenant.ID) (ns int64, ok bool, err error)

// Config configures an index.
type Config struct {
	// MaxStreams bounds the streams kept across tenants.
	MaxStreams int
	// Retention is the storage's retention: rows older than it may have
	// been deleted, so earlier ranges are left to the storage.
	Retention time.Duration
	// Horizon reads a tenant's newest stored row.
	Horizon HorizonFunc
	// Labels is Loki's rule for label answers over recent ranges (off:
	// the whole UTC days the range touches).
	Labels LabelRule
	// MaxLines bounds the entries whose time and line length are kept
	// for volumes (0: none; volumes then always come from the storage).
	MaxLines int
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Complete, when set, reports whether the index was told of every
	// push acknowledged so far by any writer (replicas that together are
	// the only writers, package peers); while it was not, nothing is
	// answered from memory. Nil: always.
	Complete func() bool
}

// Index is the in-memory stream index.
type Index struct {
	cfg     Config
	mu      sync.RWMutex
	tenants map[tenant.ID]*tenantIndex
	streams int
	lines   int
	// marked is how many streams have marks (linekinds.go).
	marked int
	// horizonMu serialises horizon reads (one storage query per tenant).
	horizonMu sync.Mutex
}

type tenantIndex struct {
	streams map[string]*stream
	// all are the streams in the order they came; postings them by label.
	all      []*stream
	postings postings
	// horizon is the newest timestamp of rows the index may not know;
	// valid only when known.
	horizon int64
	known   bool
	// failures counts failed pushes, so a horizon read while one failed
	// is not trusted.
	failures uint64
	// full: a stream of this tenant was not kept (MaxStreams reached).
	full bool
	// linesFrom: the tenant's entries before this time may be missing
	// from the streams' lines (trimmed, or pushed before a restart).
	linesFrom int64
	// restored is the newest timestamp of the streams restored from a
	// saved index (pushed before this process started).
	restored int64
	// days are the UTC day units (LabelRule): per day, the bounds of the
	// chunks merged into it; each stream lists the days it is in
	// (stream.days), so the units cost one entry per tenant and day.
	days map[int64]span
	// marks are the kinds of lines of the tenant's streams that had a
	// line of a kind (linekinds.go), by stream key; they hold every row
	// from marksFrom on (MinInt64: every row the index knows of).
	marks     map[string]*marks
	marksFrom int64
}

type stream struct {
	labels   lokidata.Labels
	min, max int64
	lines    []Line
	// metadata are the structured metadata names of the entries in lines
	// (sorted): a series of this stream may carry them as labels;
	// metaSets the distinct metadata label sets its lines point to.
	metadata []string
	metaSets []lokidata.Labels
	// lastPush is the wall time (Unix ns) of the stream's last push (0:
	// unknown); open the entry times pushed since it last flushed, and
	// flushed its chunks not yet merged into day units (LabelRule).
	lastPush int64
	open     span
	flushed  []chunk
	// days are the day units the stream's merged chunks are in, as
	// sorted runs of consecutive UTC days (one run for most streams).
	days []dayRun
}

// New returns an empty index.
func New(cfg Config) *Index {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Index{cfg: cfg, tenants: map[tenant.ID]*tenantIndex{}}
}

// Acked records a push VictoriaLogs acknowledged.
func (ix *Index) Acked(t tenant.ID, streams []lokidata.Stream) {
	now := ix.cfg.Now().UnixNano()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	tn := ix.tenantLocked(t)
	for _, s := range streams {
		if len(s.Entries) == 0 {
			continue
		}
		key := s.LabelsKey()
		st := tn.streams[key]
		if st == nil {
			if ix.streams >= ix.cfg.MaxStreams {
				tn.full = true
				continue
			}
			st = &stream{labels: s.Labels, min: s.Entries[0].TimestampNs, max: s.Entries[0].TimestampNs}
			tn.addStream(key, st)
			ix.streams++
		}
		pushed := span{s.Entries[0].TimestampNs, s.Entries[0].TimestampNs}
		for _, e := range s.Entries {
			pushed = pushed.with(span{e.TimestampNs, e.TimestampNs})
		}
		st.min, st.max = min(st.min, pushed.Min), max(st.max, pushed.Max)
		ix.pushedAt(tn, st, now, pushed)
		ix.addLinesLocked(tn, st, s.Entries)
	}
}

// Prepare reads the tenant's horizon before its first push is written,
// so that the rows the storage held before are told apart from those the
// index sees: a fresh tenant is then answered from memory at once. A
// failed read is retried when the tenant is next asked.
func (ix *Index) Prepare(ctx context.Context, t tenant.ID) {
	_, _, _ = ix.horizon(ctx, t)
}

// Failed is told of a push that failed once sent: the storage may hold
// some of its rows, so the tenant's horizon is read again.
func (ix *Index) Failed(t tenant.ID) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	tn := ix.tenantLocked(t)
	tn.known = false
	tn.failures++
}

// Forget drops what the index knows of the tenant: rows were deleted from
// storage, so streams it holds may be gone. Its horizon is read again,
// and only later pushes are answered from memory.
func (ix *Index) Forget(t tenant.ID) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	tn := ix.tenants[t]
	if tn == nil {
		return
	}
	for _, st := range tn.streams {
		ix.streams--
		ix.lines -= len(st.lines)
	}
	tn.streams, tn.all, tn.postings, tn.days = map[string]*stream{}, nil, postings{}, map[int64]span{}
	tn.known, tn.full = false, false
	tn.failures++ // a horizon read in flight is not trusted
	tn.linesFrom, tn.restored = ix.cfg.Now().UnixNano(), math.MinInt64
}

// ForgetAll forgets every tenant (Forget): pushes of any tenant may have
// been acknowledged without the index being told (package peers). A
// tenant met later reads its horizon from the storage as any new one.
func (ix *Index) ForgetAll() {
	ix.mu.RLock()
	tenants := make([]tenant.ID, 0, len(ix.tenants))
	for t := range ix.tenants {
		tenants = append(tenants, t)
	}
	ix.mu.RUnlock()
	for _, t := range tenants {
		ix.Forget(t)
	}
}

func (ix *Index) complete() bool { return ix.cfg.Complete == nil || ix.cfg.Complete() }

func (ix *Index) tenantLocked(t tenant.ID) *tenantIndex {
	tn := ix.tenants[t]
	if tn == nil {
		tn = &tenantIndex{streams: map[string]*stream{}, postings: postings{}, days: map[int64]span{}, linesFrom: math.MinInt64,
			restored: math.MinInt64, marksFrom: math.MinInt64}
		ix.tenants[t] = tn
	}
	return tn
}

// Newest is the newest timestamp the stream with the label string key may
// hold: the newest pushed to
// it, or the tenant's horizon when that is later (rows stored before the
// index); false when the index cannot tell (horizon unknown, or a stream
// of the tenant was not kept).
func (ix *Index) Newest(t tenant.ID, key string) (int64, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tn := ix.tenants[t]
	if tn == nil || !tn.known || tn.full || !ix.complete() {
		return 0, false
	}
	newest := tn.horizon
	if st := tn.streams[key]; st != nil {
		newest = max(newest, st.max)
	}
	return newest, true
}

// Covers reports whether every row of the tenant at or after start was
// acknowledged by this process (none stored before the index saw the
// tenant's pushes, none restored from a saved index), so that whatever
// watched this process's pushes saw them all.
func (ix *Index) Covers(ctx context.Context, t tenant.ID, start int64) (bool, error) {
	if ok, err := ix.KnowsFrom(ctx, t, start); !ok || err != nil {
		return false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tn := ix.tenants[t]
	return tn == nil || start > tn.restored, nil
}

// KnowsFrom reports whether every stored row of the tenant from start on
// is one the index saw pushed, in this process or in those before it
// whose clean shutdowns saved it: inside the retention (older rows may be
// gone from the storage) and after the tenant's horizon.
func (ix *Index) KnowsFrom(ctx context.Context, t tenant.ID, start int64) (bool, error) {
	if ix.cfg.Retention > 0 && start < ix.cfg.Now().Add(-ix.cfg.Retention).UnixNano() {
		return false, nil
	}
	horizon, known, err := ix.horizon(ctx, t)
	return err == nil && known && start > horizon, err
}

// Request is a label names (Name empty) or label values request.
type Request struct {
	Matchers   []*logql.Matcher
	Start, End int64 // inclusive Unix ns
	Name       string
}

// Answer returns the sorted names or values when the index knows them
// exactly; ok is false when the storage must answer.
func (ix *Index) Answer(ctx context.Context, t tenant.ID, r Request) (values []string, ok bool, err error) {
	if ok, err := ix.KnowsFrom(ctx, t, r.Start); !ok || err != nil {
		return nil, false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tn := ix.tenants[t]
	if tn == nil {
		return []string{}, true, nil
	}
	if tn.full {
		return nil, false, nil
	}
	vals, ok := answer(tn, r)
	return vals, ok, nil
}

// answer collects the decided streams' names or values, and gives up
// when an undecided stream could add one.
func answer(tn *tenantIndex, r Request) ([]string, bool) {
	set := map[string]struct{}{}
	var undecided []*stream
	for _, st := range tn.candidates(r.Matchers) {
		if st.max < r.Start || st.min > r.End || !logql.MatchLabels(r.Matchers, st.labels.Get) {
			continue
		}
		if !(inRange(st.min, r) || inRange(st.max, r)) {
			undecided = append(undecided, st)
			continue
		}
		contribute(st.labels, r.Name, func(v string) { set[v] = struct{}{} })
	}
	for _, st := range undecided {
		adds := false
		contribute(st.labels, r.Name, func(v string) {
			if _, ok := set[v]; !ok {
				adds = true
			}
		})
		if adds {
			return nil, false
		}
	}
	return sortedKeys(set), true
}

func inRange(ns int64, r Request) bool { return ns >= r.Start && ns <= r.End }

// contribute gives a stream's label names, or its value of name.
func contribute(ls lokidata.Labels, name string, add func(string)) {
	for _, l := range ls {
		if l.Value == "" {
			continue // VictoriaLogs stores no empty field
		}
		if name == "" {
			add(l.Name)
		} else if l.Name == name {
			add(l.Value)
		}
	}
}

// horizon returns the tenant's horizon, reading it from the storage the
// first time.
func (ix *Index) horizon(ctx context.Context, t tenant.ID) (int64, bool, error) {
	if !ix.complete() {
		return 0, false, nil
	}
	if h, known := ix.readHorizon(t); known {
		return h, true, nil
	}
	ix.horizonMu.Lock()
	defer ix.horizonMu.Unlock()
	if h, known := ix.readHorizon(t); known {
		return h, true, nil
	}
	if ix.cfg.Horizon == nil {
		return 0, false, nil
	}
	ix.mu.Lock()
	failures := ix.tenantLocked(t).failures
	ix.mu.Unlock()
	ns, any, err := ix.cfg.Horizon(ctx, t)
	if err != nil {
		return 0, false, err
	}
	if !any {
		ns = math.MinInt64
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	tn := ix.tenantLocked(t)
	if tn.failures != failures {
		return 0, false, nil // a push failed meanwhile: read again next time
	}
	tn.horizon, tn.known = ns, true
	return ns, true, nil
}

func (ix *Index) readHorizon(t tenant.ID) (int64, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if tn := ix.tenants[t]; tn != nil && tn.known {
		return tn.horizon, true
	}
	return 0, false
}

// Streams is how many streams the index keeps.
func (ix *Index) Streams() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.streams
}
