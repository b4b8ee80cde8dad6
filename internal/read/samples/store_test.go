package samples

import (
	"strconv"
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
)

// entry builds an entry of one series with n samples, one a second from lo.
func entry(lo int64, n int) *Entry {
	s := Series{Labels: lokidata.Labels{{Name: "app", Value: "a"}}}
	for i := range n {
		s.TS = append(s.TS, lo+int64(i)*1e9)
		s.Vals = append(s.Vals, float64(i))
	}
	return &Entry{Lo: lo, Hi: lo + int64(n)*1e9, Series: []Series{s}}
}

func TestStoreStaysWithinItsBound(t *testing.T) {
	one := entry(0, 100)
	size := one.Bytes() + int64(len("k00"))
	s := NewStore(8 * size) // one entry: exactly an eighth
	for i := range 30 {
		if !s.Put("k"+strconv.Itoa(10 + i)[:2], entry(0, 100)) {
			t.Fatalf("entry %d of %d bytes refused by a store of %d", i, size, 8*size)
		}
		if used, _, _, _, _ := s.Usage(); used > 8*size {
			t.Fatalf("store holds %d bytes, bound %d", used, 8*size)
		}
	}
	if _, n, _, _, ev := s.Usage(); n != 8 || ev != 22 {
		t.Fatalf("entries %d, evictions %d; want 8 and 22", n, ev)
	}
	if s.Put("big", entry(0, 101)) {
		t.Fatal("an entry over an eighth of the store was kept")
	}
}

func TestStoreEvictsLeastRecentlyUsed(t *testing.T) {
	size := entry(0, 10).Bytes() + 2
	s := NewStore(8 * (size + 1)) // room for 8
	for i := range 8 {
		s.Put("k"+strconv.Itoa(i), entry(0, 10))
	}
	s.Get("k0") // k0 now most recently used: k1 goes first
	s.Put("k8", entry(0, 10))
	if _, ok := s.Get("k1"); ok {
		t.Fatal("k1, the least recently used, was not evicted")
	}
	for _, k := range []string{"k0", "k2", "k8"} {
		if _, ok := s.Get(k); !ok {
			t.Fatalf("%s evicted", k)
		}
	}
}

func TestStoreReplacesAKey(t *testing.T) {
	s := NewStore(1 << 20)
	s.Put("k", entry(0, 10))
	s.Put("k", entry(5e9, 10))
	e, ok := s.Get("k")
	if !ok || e.Lo != 5e9 {
		t.Fatalf("got %+v, want the second entry", e)
	}
	if used, n, _, _, _ := s.Usage(); n != 1 || used != e.Bytes()+1 {
		t.Fatalf("%d entries of %d bytes after a replacement", n, used)
	}
}

func TestSeenAtAnotherGrid(t *testing.T) {
	s := NewStore(1 << 20)
	if s.Seen("q", "15s@0") {
		t.Fatal("first evaluation reported as seen")
	}
	if s.Seen("q", "15s@0") {
		t.Fatal("the same grid reported as another")
	}
	if !s.Seen("q", "30s@0") {
		t.Fatal("another grid not reported")
	}
	for i := range seenLimit {
		s.Seen("x"+strconv.Itoa(i), "g")
	}
	if len(s.seen) > seenLimit {
		t.Fatalf("seen set holds %d inputs, bound %d", len(s.seen), seenLimit)
	}
}

func TestCut(t *testing.T) {
	e := entry(0, 10) // samples at 0..9 s, covering [0, 10 s)
	c := e.Cut(2e9, 5e9)
	if c.Lo != 2e9 || c.Hi != 5e9 || len(c.Series) != 1 || len(c.Series[0].TS) != 3 || c.Series[0].TS[0] != 2e9 {
		t.Fatalf("cut [2s, 5s): %+v", c)
	}
	// Appending to a cut never writes into the entry.
	_ = append(c.Series[0].TS, -1)
	if e.Series[0].TS[5] != 5e9 {
		t.Fatal("an append to a cut wrote into the entry")
	}
	if c := e.Cut(20e9, 30e9); c.Hi > c.Lo || len(c.Series) != 0 {
		t.Fatalf("a cut outside the entry holds %+v", c)
	}
	if c := e.Cut(-5e9, 3e9); c.Lo != 0 || c.Hi != 3e9 {
		t.Fatalf("a cut reaching before the entry: [%d, %d)", c.Lo, c.Hi)
	}
}

// TestClaimIsExclusive: while one request fills an input, another is
// refused; after release the input can be claimed again, and other inputs
// are never held up.
func TestClaimIsExclusive(t *testing.T) {
	s := NewStore(1 << 20)
	release, ok := s.Claim("a")
	if !ok {
		t.Fatal("first claim refused")
	}
	if _, ok := s.Claim("a"); ok {
		t.Fatal("second claim of a held input granted")
	}
	other, ok := s.Claim("b")
	if !ok {
		t.Fatal("another input's claim refused")
	}
	other()
	release()
	again, ok := s.Claim("a")
	if !ok {
		t.Fatal("claim refused after release")
	}
	again()
}

func TestStoreRemembersInputsTooBigToKeep(t *testing.T) {
	s := NewStore(1 << 10)
	big := &Entry{Lo: 0, Hi: 10, Series: []Series{{TS: make([]int64, 100), Vals: make([]float64, 100)}}}
	if s.Put("k", big) {
		t.Fatal("an entry over an eighth of the store was kept")
	}
	if !s.Refused("k") || s.Refused("other") {
		t.Fatal("Refused does not tell the input too large to keep")
	}
}
