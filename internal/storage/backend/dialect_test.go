package backend

import "testing"

// TestBucketOffsetLearnsTheSign: the offset is first written for
// VictoriaLogs' newer reading (buckets at -offset + k*w); a bucket on the
// mirrored grid switches to the older reading (offset + k*w) and back.
func TestBucketOffsetLearnsTheSign(t *testing.T) {
	const w = 60
	var d Dialect
	off, adds := d.BucketOffset(1, w)
	if off != 59 || adds {
		t.Fatalf("newer reading: offset %d adds %v, want 59 false", off, adds)
	}
	if d.MirroredBuckets(121, 1, w, adds) {
		t.Fatal("a bucket on the grid is not mirrored")
	}
	// The backend put its bucket at -59 + k*60 ≡ 1: on the grid. An older
	// backend puts it at 59 + k*60: mirrored.
	if !d.MirroredBuckets(119, 1, w, adds) {
		t.Fatal("a bucket at -align is mirrored")
	}
	if off, adds = d.BucketOffset(1, w); off != 1 || !adds {
		t.Fatalf("older reading: offset %d adds %v, want 1 true", off, adds)
	}
	if !d.MirroredBuckets(-1, -59, w, adds) {
		t.Fatal("switching back: a bucket at -align is mirrored")
	}
	if _, adds = d.BucketOffset(1, w); adds {
		t.Fatal("did not switch back")
	}
	// Grids that are their own mirror never mismatch.
	for _, align := range []int64{0, 30} {
		if d.MirroredBuckets(align+7, align, w, false) || d.MirroredBuckets(align, align, w, false) {
			t.Errorf("align %d: mirrored", align)
		}
	}
}
