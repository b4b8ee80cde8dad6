package parity

import (
	"testing"
	"time"
)

func TestGenerateIsDeterministicAndSized(t *testing.T) {
	a := Generate(100_000, 24*time.Hour)
	b := Generate(100_000, 24*time.Hour)
	if len(a) < 20 {
		t.Fatalf("only %d streams", len(a))
	}
	total := 0
	for i := range a {
		if a[i].Labels.String() != b[i].Labels.String() || len(a[i].Entries) != len(b[i].Entries) {
			t.Fatalf("stream %d differs between runs", i)
		}
		for j := range a[i].Entries {
			if a[i].Entries[j].Line != b[i].Entries[j].Line || a[i].Entries[j].TimestampNs != b[i].Entries[j].TimestampNs {
				t.Fatalf("entry %d/%d differs between runs", i, j)
			}
		}
		total += len(a[i].Entries)
	}
	if total < 80_000 || total > 130_000 {
		t.Fatalf("%d entries, want about 100k", total)
	}
}
