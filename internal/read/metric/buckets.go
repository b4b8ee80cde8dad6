package metric

import (
	"cmp"
	"slices"
	"sort"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
)

// bucketCell is one VictoriaLogs stats row: a bucket's row count and line
// bytes for one group.
type bucketCell struct {
	idx          int
	count, bytes int64
}

// bucketGroup is one label set's cells.
type bucketGroup struct {
	labels lokidata.Labels
	cells  []bucketCell
}

// windows calls fn for every step whose window holds rows of the group,
// with the window's totals. Step i's window is the perWindow buckets from
// (steps[i]-first)/width on.
func (g *bucketGroup) windows(steps []int64, first, width int64, perWindow int, fn func(i int, count, bytes int64)) {
	slices.SortFunc(g.cells, func(a, b bucketCell) int { return cmp.Compare(a.idx, b.idx) })
	// Prefix sums: counts[k] and bytes[k] total the cells before k.
	counts, bytes := make([]int64, len(g.cells)+1), make([]int64, len(g.cells)+1)
	for k, c := range g.cells {
		counts[k+1], bytes[k+1] = counts[k]+c.count, bytes[k]+c.bytes
	}
	lo, hi := 0, 0
	for i, t := range steps {
		from := int((t - first) / width)
		for lo < len(g.cells) && g.cells[lo].idx < from {
			lo++
		}
		hi = max(hi, lo)
		for hi < len(g.cells) && g.cells[hi].idx < from+perWindow {
			hi++
		}
		if hi > lo {
			fn(i, counts[hi]-counts[lo], bytes[hi]-bytes[lo])
		}
	}
}

// groupIndex maps VictoriaLogs' stats rows to groups: by the raw values of
// the by fields first (no allocation for a group seen before), then by
// label set.
type groupIndex struct {
	by       []string
	labelsOf func(*backend.Row) (lokidata.Labels, error)
	raw      map[string]*bucketGroup
	byLabels map[string]*bucketGroup
	groups   []*bucketGroup
	key      []byte
	mem      *budget
}

func newGroupIndex(by []string, labelsOf func(*backend.Row) (lokidata.Labels, error), mem *budget) *groupIndex {
	return &groupIndex{by: by, labelsOf: labelsOf, raw: map[string]*bucketGroup{}, byLabels: map[string]*bucketGroup{}, mem: mem}
}

func (x *groupIndex) group(row *backend.Row) (*bucketGroup, error) {
	x.key = x.key[:0]
	for _, name := range x.by {
		v := row.Get(name)
		x.key = append(x.key, byte(len(v)>>24), byte(len(v)>>16), byte(len(v)>>8), byte(len(v)))
		x.key = append(x.key, v...)
	}
	if g, ok := x.raw[string(x.key)]; ok {
		return g, nil
	}
	labels, err := x.labelsOf(row)
	if err != nil {
		return nil, err
	}
	if err := x.mem.take(groupBytes + int64(len(x.key))); err != nil {
		return nil, err
	}
	k := labels.String()
	g, ok := x.byLabels[k]
	if !ok {
		if err := x.mem.take(labelsBytes(labels) + int64(len(k))); err != nil {
			return nil, err
		}
		g = &bucketGroup{labels: labels}
		x.byLabels[k] = g
		x.groups = append(x.groups, g)
	}
	x.raw[string(x.key)] = g
	return g, nil
}

// sorted returns the groups in label order.
func (x *groupIndex) sorted() []*bucketGroup { return sortedGroups(x.groups) }

// sortedGroups orders groups by their label string.
func sortedGroups(groups []*bucketGroup) []*bucketGroup {
	keys := make([]string, len(groups))
	for i, g := range groups {
		keys[i] = g.labels.String()
	}
	sort.Sort(groupsByKey{groups, keys})
	return groups
}

type groupsByKey struct {
	groups []*bucketGroup
	keys   []string
}

func (s groupsByKey) Len() int           { return len(s.groups) }
func (s groupsByKey) Less(i, j int) bool { return s.keys[i] < s.keys[j] }
func (s groupsByKey) Swap(i, j int) {
	s.groups[i], s.groups[j] = s.groups[j], s.groups[i]
	s.keys[i], s.keys[j] = s.keys[j], s.keys[i]
}
