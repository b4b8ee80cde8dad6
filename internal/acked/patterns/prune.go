package patterns

import (
	"cmp"
	"slices"
)

// Loki's querier keeps patterns seen at least minClusterSize times in the
// answered range, the maxPatterns most frequent.
const (
	minClusterSize = 30
	maxPatterns    = 300
)

// Prune keeps what Loki's querier keeps, most frequent first (ties by
// pattern then level, where Loki's order is arbitrary).
func Prune(series []Series) []Series {
	totals := make(map[*Series]int64, len(series))
	kept := make([]*Series, 0, len(series))
	for i := range series {
		s := &series[i]
		for _, smp := range s.Samples {
			totals[s] += smp.Count
		}
		if totals[s] >= minClusterSize {
			kept = append(kept, s)
		}
	}
	slices.SortFunc(kept, func(a, b *Series) int {
		return cmp.Or(cmp.Compare(totals[b], totals[a]), cmp.Compare(a.Pattern, b.Pattern), cmp.Compare(a.Level, b.Level))
	})
	out := make([]Series, 0, min(len(kept), maxPatterns))
	for _, s := range kept[:min(len(kept), maxPatterns)] {
		out = append(out, *s)
	}
	return out
}
