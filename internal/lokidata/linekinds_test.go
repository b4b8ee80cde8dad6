package lokidata

import "testing"

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
