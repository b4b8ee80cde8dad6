package lokidata

import (
	"strings"
	"testing"
)

func TestKindsOf(t *testing.T) {
	for line, want := range map[string]LineKinds{
		``:                       0,
		`{"a":"b"}`:              0,
		`{"a":"b\"c"}`:           LineEscapes,
		`path=C:\x`:              LineEscapes,
		`reine équeen`:           LineNonASCII,
		"a\xffb":                 LineNonASCII,
		`{"a":"\u00e9","b":"é"}`: LineEscapes | LineNonASCII,
	} {
		if got := KindsOf(line); got != want {
			t.Errorf("KindsOf(%q) = %b, want %b", line, got, want)
		}
	}
}

// TestKindsOfFindsEveryByteOutsideASCII: a byte outside ASCII is found at
// any place of a line of any length (the scan reads words, then bytes).
func TestKindsOfFindsEveryByteOutsideASCII(t *testing.T) {
	for n := 1; n <= 40; n++ {
		if KindsOf(strings.Repeat("a", n)) != 0 {
			t.Fatalf("%d ASCII bytes marked", n)
		}
		for at := range n {
			for _, c := range []byte{0x80, 0xc3, 0xff} {
				b := []byte(strings.Repeat("a", n))
				b[at] = c
				if KindsOf(string(b))&LineNonASCII == 0 {
					t.Fatalf("byte %#x at %d of %d not found", c, at, n)
				}
			}
		}
	}
}

func BenchmarkKindsOf(b *testing.B) {
	line := strings.Repeat(`{"agent":{"name":"coldraccoon"},"level":"INFO","message":"jackal fancier hero"} `, 10)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if KindsOf(line) != 0 {
			b.Fatal("marked")
		}
	}
}
