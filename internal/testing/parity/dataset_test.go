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

func TestSlicesKeepEveryEntryOnceInTimeOrder(t *testing.T) {
	ds := Generate(20_000, 24*time.Hour)
	parts := Slices(ds, 24)
	if len(parts) != 24 {
		t.Fatalf("%d slices, want 24", len(parts))
	}
	seen := 0
	last := map[string]int64{}
	for _, part := range parts {
		for _, s := range part {
			for _, e := range s.Entries {
				if e.TimestampNs < last[s.Labels.String()] {
					t.Fatalf("stream %s goes back in time across slices", s.Labels)
				}
				last[s.Labels.String()] = e.TimestampNs
				seen++
			}
		}
	}
	if seen != Total(ds) {
		t.Fatalf("slices hold %d entries, the dataset %d", seen, Total(ds))
	}
}
