package lokidata

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestLabelsStringQuotesAsStrconv: a label string is {name="value", …}
// with each value as strconv.Quote writes it, whatever the bytes
// (controls, quotes, backslashes, DEL, UTF-8 and invalid UTF-8).
func TestLabelsStringQuotesAsStrconv(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "0", " ", "_", "\"", "\\", "\n", "\t", "\x00", "\x7f", "é", "日", "\xff", "~", "{", "}"}
	for range 5000 {
		var ls Labels
		var want []string
		for j := range r.IntN(4) {
			var v strings.Builder
			for range r.IntN(8) {
				v.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			name := "l" + strconv.Itoa(j)
			ls = append(ls, Label{Name: name, Value: v.String()})
			want = append(want, name+"="+strconv.Quote(v.String()))
		}
		if got, w := ls.String(), "{"+strings.Join(want, ", ")+"}"; got != w {
			t.Fatalf("%#v: got %s, want %s", ls, got, w)
		}
	}
}

func BenchmarkLabelsString(b *testing.B) {
	ls := Labels{{Name: "agent", Value: "benchmark"}, {Name: "bucketed_hostname", Value: "ab"}, {Name: "cloud_region", Value: "us-east-2"},
		{Name: "input_type", Value: "file"}, {Name: "level", Value: "info"}, {Name: "service_name", Value: "benchmark"}}
	b.ReportAllocs()
	for b.Loop() {
		_ = ls.String()
	}
}

// TestLabelsKeyIsTheLabelString: a stream's key is its label string,
// built when the push path did not set it.
func TestLabelsKeyIsTheLabelString(t *testing.T) {
	s := Stream{Labels: Labels{{Name: "app", Value: "a b"}, {Name: "env", Value: "prod"}}}
	if got, want := s.LabelsKey(), `{app="a b", env="prod"}`; got != want {
		t.Errorf("built key %q, want %q", got, want)
	}
	s.Key = s.Labels.String()
	s.Labels = nil // a set key is used as is
	if got := s.LabelsKey(); got != `{app="a b", env="prod"}` {
		t.Errorf("set key %q", got)
	}
}
