package ingest

import (
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// TestSequenceNumbersOnlyWhatMayShareATimestamp: an entry newer than all
// its stream held goes unnumbered; one that repeats or precedes a
// timestamp of its stream (in this push, or stored, when known) gets a
// number above every earlier one.
func TestSequenceNumbersOnlyWhatMayShareATimestamp(t *testing.T) {
	ls := lokidata.Labels{{Name: "app", Value: "a"}}
	other := lokidata.Labels{{Name: "app", Value: "b"}}
	entries := func(ts ...int64) []lokidata.Entry {
		var out []lokidata.Entry
		for _, n := range ts {
			out = append(out, lokidata.Entry{TimestampNs: n})
		}
		return out
	}
	streams := []lokidata.Stream{{Labels: ls, Entries: entries(10, 10, 11, 9, 12)}, {Labels: other, Entries: entries(10)}, {Labels: ls, Entries: entries(12)}}
	newest := func(_ tenant.ID, key string) (int64, bool) { return 5, key == ls.String() }
	sequence(tenant.ID{}, streams, newest, time.Unix(0, 0))
	numbered := func(e lokidata.Entry) bool { return e.Seq != 0 }
	want := [][]bool{{false, true, false, true, false}, {false}, {true}}
	var last uint64
	for i, s := range streams {
		for j, e := range s.Entries {
			if numbered(e) != want[i][j] {
				t.Errorf("stream %d entry %d (ts %d): numbered %v", i, j, e.TimestampNs, numbered(e))
			}
			if e.Seq != 0 {
				if e.Seq <= last {
					t.Errorf("stream %d entry %d: number %d after %d", i, j, e.Seq, last)
				}
				last = e.Seq
			}
		}
	}
	// A stored stream newer than the push: everything is numbered.
	later := []lokidata.Stream{{Labels: ls, Entries: entries(3, 4)}}
	sequence(tenant.ID{}, later, func(tenant.ID, string) (int64, bool) { return 5, true }, time.Unix(0, 0))
	if later[0].Entries[0].Seq <= last || later[0].Entries[1].Seq <= later[0].Entries[0].Seq {
		t.Fatalf("numbers %d, %d after %d", later[0].Entries[0].Seq, later[0].Entries[1].Seq, last)
	}
}
