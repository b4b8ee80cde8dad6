package backend

import "sync/atomic"

// Dialect holds what a VictoriaLogs backend does differently between the
// releases vloki supports, learnt from its answers rather than from its
// version string (a proxy in front of it may hide that, and a rolling
// upgrade changes it under a running vloki).
//
// Bucket offsets: `stats by (_time:<w> offset <o>)` puts its buckets at
// o + k*w up to VictoriaLogs v1.24 and at -o + k*w in later releases
// (v1.52: truncateTimestamp adds the offset before truncating and
// subtracts it after). vloki asks for the grid it needs in the newer
// form; an answer on the mirrored grid tells it the backend is older, and
// it asks again.
type Dialect struct {
	// offsetAdds is set once the backend is seen to place buckets at
	// offset + k*w (VictoriaLogs v1.24 and earlier).
	offsetAdds atomic.Bool
}

// BucketOffset returns the `offset` that makes the backend's _time
// buckets of width w start at align + k*w, and the sign it assumed (for
// MirroredBuckets).
func (d *Dialect) BucketOffset(align, w int64) (offset int64, adds bool) {
	align = mod(align, w)
	if adds = d.offsetAdds.Load(); adds {
		return align, adds
	}
	return mod(-align, w), adds
}

// MirroredBuckets reports whether a bucket starting at start shows that
// the backend read the offset sent (assuming adds) for the grid
// align + k*w with the other sign; if so it records the other sign, and
// the query must be asked again. A grid that is its own mirror (align 0
// or w/2) never mismatches.
func (d *Dialect) MirroredBuckets(start, align, w int64, adds bool) bool {
	if mod(start, w) != mod(-align, w) || mod(align, w) == mod(-align, w) {
		return false
	}
	d.offsetAdds.Store(!adds)
	return true
}

func mod(a, w int64) int64 { return ((a % w) + w) % w }
