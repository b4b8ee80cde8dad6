package metric

import (
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/samples"
)

// TestFrozenValidCutsAtLaterPushes: a kept entry is used only before the
// oldest entry pushed after the push it was read after.
func TestFrozenValidCutsAtLaterPushes(t *testing.T) {
	store := samples.NewStore(1 << 20)
	s := samples.Series{Labels: lokidata.Labels{{Name: "app", Value: "a"}}, TS: []int64{10, 20, 30, 40}, Vals: []float64{1, 2, 3, 4}}
	store.Put("k", &samples.Entry{Lo: 0, Hi: 50, Seq: 7, Series: []samples.Series{s}})
	var asked uint64
	cut := int64(30)
	f := &Frozen{Store: store, ValidBefore: func(seq uint64) int64 { asked = seq; return cut }}
	e := f.valid("k")
	if asked != 7 {
		t.Fatalf("validity asked after push %d, want the entry's 7", asked)
	}
	if e == nil || e.Lo != 0 || e.Hi != 30 || len(e.Series[0].TS) != 2 {
		t.Fatalf("entry cut at 30: %+v", e)
	}
	cut = 0 // a push older than the entry: nothing left
	if e := f.valid("k"); e != nil {
		t.Fatalf("entry left after a push older than all of it: %+v", e)
	}
	cut = 1 << 62 // no push since
	if e := f.valid("k"); e == nil || e.Hi != 50 {
		t.Fatalf("entry without later pushes: %+v", e)
	}
	if e := (&Frozen{Store: store}).valid("k"); e == nil || e.Hi != 50 {
		t.Fatalf("without a push ledger the entry is whole: %+v", e)
	}
}

// TestKeepJoinsAdjacentParts: what an evaluation read is kept joined with
// the valid entry on either side, in time order, only before Before.
func TestKeepJoinsAdjacentParts(t *testing.T) {
	store := samples.NewStore(1 << 20)
	a := lokidata.Labels{{Name: "app", Value: "a"}}
	b := lokidata.Labels{{Name: "app", Value: "b"}}
	valid := &samples.Entry{Lo: 0, Hi: 100, Series: []samples.Series{{Labels: a, TS: []int64{5, 95}, Vals: []float64{1, 2}}}}
	read := []*rangeSeries{{labels: b, ts: []int64{60}, vals: []float64{3}}, {labels: a, ts: []int64{50, 70}, vals: []float64{4, 5}}}
	f := &Frozen{Store: store, Before: 90, Seq: 3}
	f.keep("k", valid.Cut(0, 100), read, 40, 80)
	e, ok := store.Get("k")
	if !ok {
		t.Fatal("nothing kept")
	}
	if e.Lo != 0 || e.Hi != 90 || e.Seq != 3 {
		t.Fatalf("kept [%d, %d) after %d, want [0, 90) after 3", e.Lo, e.Hi, e.Seq)
	}
	got := map[string][]int64{}
	for _, s := range e.Series {
		got[s.Labels.String()] = s.TS
	}
	// a: 5 (valid, before), 50 and 70 (read); 95 is not frozen yet.
	if ts := got[a.String()]; len(ts) != 3 || ts[0] != 5 || ts[1] != 50 || ts[2] != 70 {
		t.Fatalf("series a kept %v", ts)
	}
	if ts := got[b.String()]; len(ts) != 1 || ts[0] != 60 {
		t.Fatalf("series b kept %v", ts)
	}
}
