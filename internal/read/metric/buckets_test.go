package metric

import (
	"math/rand/v2"
	"testing"
)

// TestBucketWindowsMatchNaiveSums checks the prefix-sum walk against
// summing each window's buckets directly, on random cells and grids.
func TestBucketWindowsMatchNaiveSums(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 500; round++ {
		width := int64(1 + r.IntN(5))
		perWindow := 1 + r.IntN(6)
		stepBuckets := int64(1 + r.IntN(4))
		first := int64(r.IntN(100))
		var steps []int64
		for i, n := 0, 1+r.IntN(20); i < n; i++ {
			steps = append(steps, first+int64(i)*stepBuckets*width)
		}
		nBuckets := int((steps[len(steps)-1]-first)/width) + perWindow
		g := &bucketGroup{}
		naive := make([][2]int64, nBuckets)
		for i, n := 0, r.IntN(40); i < n; i++ {
			c := bucketCell{idx: r.IntN(nBuckets), count: int64(1 + r.IntN(9)), bytes: int64(r.IntN(100))}
			g.cells = append(g.cells, c)
			naive[c.idx][0] += c.count
			naive[c.idx][1] += c.bytes
		}
		got := map[int][2]int64{}
		g.windows(steps, first, width, perWindow, func(i int, count, bytes int64) { got[i] = [2]int64{count, bytes} })
		for i, st := range steps {
			var want [2]int64
			from := int((st - first) / width)
			for k := from; k < from+perWindow; k++ {
				want[0] += naive[k][0]
				want[1] += naive[k][1]
			}
			if have, ok := got[i]; ok != (want[0] > 0) || have != want {
				t.Fatalf("round %d step %d: got %v (%v), want %v", round, i, have, ok, want)
			}
		}
	}
}
