package frontend

import (
	"math"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/samples"
)

// ackLog answers OldestSince from a fixed table (unit test only).
type ackLog map[uint64]int64

func (l ackLog) OldestSince(_ tenant.ID, seq uint64) (int64, bool) {
	oldest, ok := l[seq]
	return oldest, ok
}

func TestFrozenSamplesFor(t *testing.T) {
	now := time.Unix(1000, 0)
	s := &FrozenSamples{Store: samples.NewStore(1 << 20), Freshness: 10 * time.Minute, Now: func() time.Time { return now }}
	t1, t2 := tenant.ID{AccountID: 1}, tenant.ID{AccountID: 2}
	if s.For(t1, ReadState{}) != nil {
		t.Fatal("frozen samples without a cache generation")
	}
	f := s.For(t1, ReadState{Generation: 4, GenerationOK: true})
	if f.Before != now.Add(-10*time.Minute).UnixNano() || f.ValidBefore != nil {
		t.Fatalf("without acks: before %d, want now less the freshness window, no push cut", f.Before)
	}
	if g := s.For(t1, ReadState{Generation: 5, GenerationOK: true}); g.Prefix == f.Prefix {
		t.Fatal("two generations share keys")
	}
	if g := s.For(t2, ReadState{Generation: 4, GenerationOK: true}); g.Prefix == f.Prefix {
		t.Fatal("two tenants share keys")
	}
	s.Acks = ackLog{7: 123}
	if s.For(t1, ReadState{Generation: 4, GenerationOK: true}) != nil {
		t.Fatal("sole writer without a push number: samples kept")
	}
	f = s.For(t1, ReadState{Generation: 4, GenerationOK: true, AckSeq: 9, AckSeqOK: true})
	if f.Before != now.UnixNano() || f.Seq != 9 {
		t.Fatalf("sole writer: before %d after push %d, want now and 9", f.Before, f.Seq)
	}
	if got := f.ValidBefore(7); got != 123 {
		t.Fatalf("valid before %d after push 7, want the ledger's 123", got)
	}
	if got := f.ValidBefore(3); got != math.MinInt64 {
		t.Fatalf("a push the ledger no longer holds leaves the entry valid before %d", got)
	}
}
