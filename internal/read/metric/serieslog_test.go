package metric

import (
	"math/rand"
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
)

// The series log names each sample's series by its labels' text, however
// the samples share label slices and move between positions: the ids
// it records per step stand for the same texts as naming every sample
// afresh, and each split counts the texts present.
func TestSeriesLogNamesEverySampleByItsLabels(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	pool := make([]lokidata.Labels, 6)
	for i := range pool {
		pool[i] = lokidata.Labels{{Name: "app", Value: string(rune('a' + i))}}
	}
	for round := 0; round < 200; round++ {
		times := make([]int64, 1+r.Intn(30))
		v := value{vectors: make([][]sample, len(times))}
		for i := range times {
			times[i] = int64(i) * 10
			for _, k := range r.Perm(len(pool))[:r.Intn(len(pool)+1)] {
				ls := pool[k]
				if r.Intn(3) == 0 { // an equal copy, not the shared slice
					ls = append(lokidata.Labels(nil), ls...)
				}
				v.vectors[i] = append(v.vectors[i], sample{labels: ls, v: 1})
			}
			if r.Intn(4) == 0 && i > 0 { // the step before's order, as a series keeps its place
				v.vectors[i] = append([]sample(nil), v.vectors[i-1]...)
			}
		}
		l := newSeriesLog(times, v)
		for i, vec := range v.vectors {
			if len(l.steps[i]) != len(vec) {
				t.Fatalf("round %d step %d: %d ids for %d samples", round, i, len(l.steps[i]), len(vec))
			}
			for j, s := range vec {
				if got := l.names[l.steps[i][j]]; got != s.labels.String() {
					t.Fatalf("round %d step %d sample %d: named %s, labels %s", round, i, j, got, s.labels)
				}
			}
		}
		lo, hi := r.Intn(len(times)), r.Intn(len(times))
		want := map[string]bool{}
		for i := min(lo, hi); i <= max(lo, hi); i++ {
			for _, s := range v.vectors[i] {
				want[s.labels.String()] = true
			}
		}
		got := map[string]bool{}
		l.addIn(SplitRange{Start: times[min(lo, hi)], End: times[max(lo, hi)]}, got)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d series in steps %d..%d, counted %d", round, len(want), lo, hi, len(got))
		}
	}
}
