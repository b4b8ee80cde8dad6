package ingest

import (
	"sync/atomic"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// NewestFunc is the newest timestamp a stream (by its label string) may
// already hold; false when unknown.
type NewestFunc func(t tenant.ID, key string) (int64, bool)

// lastSeq is the last arrival number given: numbers grow across pushes
// and, starting from the clock, across restarts.
var lastSeq atomic.Uint64

func nextSeq(now time.Time) uint64 {
	for {
		old := lastSeq.Load()
		n := max(old+1, uint64(now.UnixNano()))
		if lastSeq.CompareAndSwap(old, n) {
			return n
		}
	}
}

// sequence numbers the entries that may share their stream and timestamp
// with one written before them (schema.SeqField): those not newer than
// an earlier entry of their stream in this push, or than what the stream
// already holds (newest, when known). An entry at a timestamp its stream
// already held in an earlier push is numbered only when newest knows the
// stream: without it (not the only writer) such an entry sorts among its
// equals by line.
func sequence(t tenant.ID, streams []lokidata.Stream, newest NewestFunc, now time.Time) {
	maxSeen := map[string]int64{}
	for _, s := range streams {
		key := s.LabelsKey()
		top, seen := maxSeen[key]
		if !seen && newest != nil {
			top, seen = newest(t, key)
		}
		for i := range s.Entries {
			e := &s.Entries[i]
			if seen && e.TimestampNs <= top {
				e.Seq = nextSeq(now)
			}
			if !seen || e.TimestampNs > top {
				top, seen = e.TimestampNs, true
			}
		}
		maxSeen[key] = top
	}
}
