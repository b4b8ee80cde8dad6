package metric

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/vloki/vloki/internal/acked/streamindex"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
)

// Indexed is the stream index of acknowledged pushes (vloki the only
// writer): every entry's time and line length per stream, which answers
// counts and byte sums over a bare selector at any grid without reading
// the storage. Indexed reports ok false when it does not hold every
// entry of [start, end].
type Indexed interface {
	Indexed(ctx context.Context, t tenant.ID, ms []*logql.Matcher, start, end int64, fn func(streamindex.Entries)) (ok bool, err error)
}

// NoEntries reports that ix holds every entry of the tenant's streams
// matching ms in [lo, hi] (Unix ns, inclusive) and there is none.
func NoEntries(ctx context.Context, ix Indexed, t tenant.ID, ms []*logql.Matcher, lo, hi int64) bool {
	empty := true
	ok, err := ix.Indexed(ctx, t, ms, lo, hi, func(e streamindex.Entries) {
		empty = empty && len(e.Lines) == 0
	})
	return ok && err == nil && empty
}

// IndexedAnswers counts the range aggregations the stream index answered
// (tests check that it did).
var IndexedAnswers atomic.Int64

// indexedOp: the range operations that only count entries or sum their
// line lengths.
func indexedOp(m *plan.RangeAgg) bool {
	switch m.Op {
	case logql.OpCountOverTime, logql.OpRate, logql.OpBytesOverTime, logql.OpBytesRate:
		return m.Unwrap == nil
	}
	return false
}

// indexedGroup is one series' counts and byte sums per step.
type indexedGroup struct {
	labels        lokidata.Labels
	counts, bytes []int64
}

// indexedWindows evaluates a range aggregation over a bare selector from
// the stream index: per series and step, the entries and line bytes of
// the window (t-offset-range, t-offset]. Counts and byte sums are whole
// numbers, so adding them per stream gives the rows path's values to the
// bit. ok is false when the index cannot answer: no index, another
// operation or pipeline, entries it does not hold, or metadata it did not
// keep that would label a series.
func (ev *evaluator) indexedWindows(ctx context.Context, m *plan.RangeAgg) (value, bool, error) {
	if ev.req.Indexed == nil || !indexedOp(m) || len(ev.steps) == 0 || m.Range <= 0 {
		return value{}, false, nil
	}
	dropped, bare := m.Log.BareSelector()
	if !bare {
		return value{}, false, nil
	}
	groups, without, noLabels := m.ExtractGrouping(m.Grouping)
	grouped := func(ls lokidata.Labels) lokidata.Labels {
		return groupedStreamLabels(ls.Without(dropped...), groups, without, noLabels)
	}
	sp := ev.span(m)
	index := map[string]*indexedGroup{}
	fits, held := true, ev.mem.used
	add := func(labels lokidata.Labels, lines []streamindex.Line) {
		key := labels.String()
		g := index[key]
		if g == nil {
			if err := ev.mem.take(labelsBytes(labels) + int64(len(key)) + 16*int64(len(ev.steps))); err != nil {
				fits = false
				return
			}
			g = &indexedGroup{labels: labels, counts: make([]int64, len(ev.steps)), bytes: make([]int64, len(ev.steps))}
			index[key] = g
		}
		ev.addWindows(m, g, lines)
	}
	ok, err := ev.req.Indexed.Indexed(ctx, ev.t, m.Log.Selector, sp.lo, sp.hi, func(e streamindex.Entries) {
		switch {
		case !fits || len(e.Lines) == 0:
		case metadataUnseen(e.Metadata, groups, without, noLabels):
			add(grouped(e.Labels), e.Lines)
		default:
			fits = eachMetadataSet(e, func(md lokidata.Labels, lines []streamindex.Line) {
				add(grouped(logrow.MergeLabels(e.Labels, md)), lines)
			}) && fits
		}
	})
	if err != nil || !ok || !fits {
		ev.mem.used = held
		return value{}, false, err
	}
	IndexedAnswers.Add(1)
	return ev.indexedValue(m, index), true, nil
}

// eachMetadataSet calls fn with each metadata set of the stream's entries
// and the entries carrying it, in time order; false when an entry's set
// was not kept or holds an empty value (the storage answers).
func eachMetadataSet(e streamindex.Entries, fn func(md lokidata.Labels, lines []streamindex.Line)) bool {
	bySet := map[uint32][]streamindex.Line{}
	var order []uint32
	for _, l := range e.Lines {
		if l.Meta == streamindex.UnknownMeta {
			return false
		}
		if _, ok := bySet[l.Meta]; !ok {
			order = append(order, l.Meta)
		}
		bySet[l.Meta] = append(bySet[l.Meta], l)
	}
	for _, id := range order {
		var md lokidata.Labels
		if id > 0 {
			md = e.MetaSets[id-1]
			for _, l := range md {
				if l.Value == "" {
					return false
				}
			}
		}
		fn(md, bySet[id])
	}
	return true
}

// addWindows adds one stream's entries (in time order) to the group's
// windows.
func (ev *evaluator) addWindows(m *plan.RangeAgg, g *indexedGroup, lines []streamindex.Line) {
	start, end := 0, 0
	var inside int64 // bytes of lines[start:end]
	for i, t := range ev.steps {
		wlo, whi := t-m.Offset-m.Range, t-m.Offset
		for end < len(lines) && lines[end].TS <= whi {
			inside += int64(lines[end].Bytes)
			end++
		}
		for start < end && lines[start].TS <= wlo {
			inside -= int64(lines[start].Bytes)
			start++
		}
		g.counts[i] += int64(end - start)
		g.bytes[i] += inside
	}
}

// indexedValue turns the groups' sums into the steps' samples, series in
// label order as rangeWindows gives them.
func (ev *evaluator) indexedValue(m *plan.RangeAgg, index map[string]*indexedGroup) value {
	keys := make([]string, 0, len(index))
	for k := range index {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := value{vectors: make([][]sample, len(ev.steps))}
	for _, k := range keys {
		g := index[k]
		for i := range ev.steps {
			if g.counts[i] == 0 {
				continue
			}
			out.vectors[i] = append(out.vectors[i], sample{labels: g.labels, v: indexedSample(m, g.counts[i], g.bytes[i])})
		}
	}
	return out
}

// indexedSample is the window's value as rangefn.go computes it.
func indexedSample(m *plan.RangeAgg, count, bytes int64) float64 {
	switch m.Op {
	case logql.OpCountOverTime:
		return float64(count)
	case logql.OpRate:
		return float64(count) / rangeSeconds(m)
	case logql.OpBytesOverTime:
		return float64(bytes)
	}
	return float64(bytes) / rangeSeconds(m)
}

// metadataUnseen reports that none of the stream's structured metadata
// can label its series under the grouping: no labels at all, or a `by`
// list naming none of them (metadata named like one of the stream's
// labels shows as <name>_extracted, as Loki's labels builder names it).
func metadataUnseen(metadata, groups []string, without, noLabels bool) bool {
	switch {
	case noLabels || len(metadata) == 0:
		return true
	case without || len(groups) == 0:
		return false
	}
	for _, g := range groups {
		for _, name := range []string{g, strings.TrimSuffix(g, "_extracted")} {
			if _, found := slices.BinarySearch(metadata, name); found {
				return false
			}
		}
	}
	return true
}

// groupedStreamLabels reduces a stream's labels to the grouping, as
// stages.Entry.GroupedLabels does for an entry without metadata or
// parsed labels.
func groupedStreamLabels(ls lokidata.Labels, groups []string, without, noLabels bool) lokidata.Labels {
	switch {
	case noLabels:
		return lokidata.Labels{}
	case len(groups) == 0:
		return slices.Clone(ls)
	case without:
		return ls.Without(groups...)
	}
	out := make(lokidata.Labels, 0, len(groups))
	for _, g := range groups {
		if v, ok := ls.Get(g); ok {
			out = append(out, lokidata.Label{Name: g, Value: v})
		}
	}
	out.Sort()
	return out
}
