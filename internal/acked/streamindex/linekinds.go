package streamindex

import (
	"context"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
)

// Kinds of lines (lokidata.LineKinds) are marked per stream when a push is
// about to be written, before VictoriaLogs may hold its rows: a read that
// plans after asking LineKinds cannot meet a row of a kind the index does
// not know of. A mark is the time span of the stream's entries of that
// kind and is never taken back (a failed or deduplicated push leaves it:
// it means "may hold"). Only streams with a marked line have marks: at
// most MaxStreams across tenants (40 bytes and the labels each), past
// which a tenant with a new marked stream is full.

// kindCount is how many kinds lokidata defines.
const kindCount = 2

// marks are one stream's kinds of lines and, per kind, the span of its
// entries of that kind.
type marks struct {
	labels lokidata.Labels
	kinds  lokidata.LineKinds
	spans  [kindCount]span
}

func (m *marks) add(o *marks) {
	for i := range kindCount {
		k := lokidata.LineKinds(1 << i)
		switch {
		case o.kinds&k == 0:
		case m.kinds&k == 0:
			m.spans[i] = o.spans[i]
		default:
			m.spans[i] = m.spans[i].with(o.spans[i])
		}
	}
	m.kinds |= o.kinds
}

// kindsIn is the kinds whose span meets [start, end] (inclusive).
func (m *marks) kindsIn(start, end int64) lokidata.LineKinds {
	var out lokidata.LineKinds
	for i := range kindCount {
		k := lokidata.LineKinds(1 << i)
		if m.kinds&k != 0 && m.spans[i].Max >= start && m.spans[i].Min <= end {
			out |= k
		}
	}
	return out
}

// marksOf is the marks of one stream's entries; nil when none is marked.
func marksOf(s lokidata.Stream) *marks {
	var m *marks
	for _, e := range s.Entries {
		k := lokidata.KindsOf(e.Line)
		if k == 0 {
			continue
		}
		if m == nil {
			m = &marks{labels: s.Labels}
		}
		at := marks{kinds: k}
		for i := range kindCount {
			at.spans[i] = span{e.TimestampNs, e.TimestampNs}
		}
		m.add(&at)
	}
	return m
}

// Writing is told of a push about to be written: it reads the tenant's
// horizon (Prepare) and marks the kinds of its lines.
func (ix *Index) Writing(ctx context.Context, t tenant.ID, streams []lokidata.Stream) {
	ix.Prepare(ctx, t)
	ix.Mark(t, streams)
}

// Mark marks the kinds of the lines of a push (one another replica
// wrote, package peers: its rows are stored already, so no horizon is
// read for it).
func (ix *Index) Mark(t tenant.ID, streams []lokidata.Stream) {
	var found []*marks
	for _, s := range streams {
		if m := marksOf(s); m != nil {
			found = append(found, m)
		}
	}
	if len(found) == 0 {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	tn := ix.tenantLocked(t)
	for _, m := range found {
		key := m.labels.String()
		if old := tn.marks[key]; old != nil {
			old.add(m)
			continue
		}
		if ix.marked >= ix.cfg.MaxStreams {
			tn.full = true
			continue
		}
		if tn.marks == nil {
			tn.marks = map[string]*marks{}
		}
		tn.marks[key] = m
		ix.marked++
	}
}

// LineKinds is the kinds of the lines the tenant's streams matching ms may
// hold in [start, end] (Unix ns, inclusive); ok is false when the index
// does not know every row of the range (rows stored before it, or
// restored from a saved index without marks, whose lines it never saw).
func (ix *Index) LineKinds(ctx context.Context, t tenant.ID, ms []*logql.Matcher, start, end int64) (kinds lokidata.LineKinds, ok bool, err error) {
	if ok, err := ix.KnowsFrom(ctx, t, start); !ok || err != nil {
		return 0, false, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tn := ix.tenants[t]
	if tn == nil {
		return 0, true, nil
	}
	if tn.full || start < tn.marksFrom {
		return 0, false, nil
	}
	for _, m := range tn.marks {
		if add := m.kindsIn(start, end) &^ kinds; add != 0 && logql.MatchLabels(ms, m.labels.Get) {
			kinds |= add
		}
	}
	return kinds, true, nil
}
