package frontend

import (
	"sort"

	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/metric"
)

// recentSet is one query's kept spans: disjoint, in time order, none
// touching another (with merges those). Windows moved back by a random
// amount, as many viewers of one dashboard ask, each leave a span; once
// their spans cover a region, any window inside it is answered from
// memory. A stored set is read-only: with builds a new one.
type recentSet []*recentSpan

func (set recentSet) size() int64 {
	var n int64
	for _, s := range set {
		n += s.size()
	}
	return n
}

// valid is the set cut where a later push may have changed it (vloki the
// sole writer): what remains is valid as of now.
func (set recentSet) valid(frozen *metric.Frozen) recentSet {
	if frozen.ValidBefore == nil || len(set) == 0 {
		return set
	}
	out := make(recentSet, 0, len(set))
	for _, s := range set {
		if cut := frozen.ValidBefore(s.seq); cut < s.hi {
			if s = s.cut(s.lo, cut); s == nil {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// completing is the span that can complete req's answer whatever is
// newer, nil when none can: the span holding req.End's last instant, or
// else the newest one ending before it (what lies between is then read),
// which reaches back to req.Start or holds at least req.Limit entries of
// the range. Otherwise the storage path answers at once rather than
// after a read that may not suffice.
func (set recentSet) completing(req logs.Request) *recentSpan {
	// The first span ending after End's last instant; the one before it
	// ends at or before that instant.
	i := sort.Search(len(set), func(i int) bool { return set[i].hi >= req.End })
	if i == len(set) || set[i].lo >= req.End {
		i--
	}
	if i < 0 || set[i].hi <= req.Start {
		return nil
	}
	s := set[i]
	if req.Start >= s.lo || s.count(req.Start, req.End) >= req.Limit {
		return s
	}
	return nil
}

// with is the set with span s added, merged with the spans it overlaps
// or touches; s is the fresher where they overlap.
func (set recentSet) with(s *recentSpan) recentSet {
	out := make(recentSet, 0, len(set)+1)
	for _, o := range set {
		if o.hi < s.lo || o.lo > s.hi {
			out = append(out, o)
			continue
		}
		s = joined(s, o)
	}
	i := sort.Search(len(out), func(i int) bool { return out[i].lo > s.lo })
	out = append(out, nil)
	copy(out[i+1:], out[i:])
	out[i] = s
	return out
}

// joined is s extended by what o holds above and below it: o's entries
// outside s's interval, s's inside.
func joined(s, o *recentSpan) *recentSpan {
	out := &recentSpan{lo: min(s.lo, o.lo), hi: max(s.hi, o.hi), seq: s.seq}
	if above := o.cut(s.hi, o.hi); above != nil {
		out.chunks = append(out.chunks, above.chunks...)
	}
	out.chunks = append(out.chunks, s.chunks...)
	if below := o.cut(o.lo, s.lo); below != nil {
		out.chunks = append(out.chunks, below.chunks...)
	}
	out.compact()
	return out
}
