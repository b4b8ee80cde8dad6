package dedup

import (
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
)

func TestWithin(t *testing.T) {
	md := func(kv ...string) lokidata.Labels {
		var ls lokidata.Labels
		for i := 0; i < len(kv); i += 2 {
			ls = append(ls, lokidata.Label{Name: kv[i], Value: kv[i+1]})
		}
		return ls
	}
	a := lokidata.Labels{{Name: "app", Value: "a"}}
	streams := []lokidata.Stream{
		{Labels: a, Entries: []lokidata.Entry{
			{TimestampNs: 1, Line: "x"}, {TimestampNs: 1, Line: "x"}, {TimestampNs: 1, Line: "y"},
			{TimestampNs: 2, Line: "x", StructuredMetadata: md("k", "1", "j", "2")},
			{TimestampNs: 2, Line: "x", StructuredMetadata: md("j", "2", "k", "1")}, // the same set
			{TimestampNs: 2, Line: "x", StructuredMetadata: md("k", "1")},
		}},
		{Labels: a, Entries: []lokidata.Entry{{TimestampNs: 1, Line: "y"}}}, // the same stream again
		{Labels: lokidata.Labels{{Name: "app", Value: "b"}}, Entries: []lokidata.Entry{{TimestampNs: 1, Line: "x"}}},
	}
	got := Within(streams)
	if len(got) != 2 || len(got[0].Entries) != 4 || len(got[1].Entries) != 1 {
		t.Fatalf("got %+v", got)
	}
}

// TestWithinOrderedPushes: entries in increasing time within each stream
// skip the keys, but a stream sent twice in one push, or entries out of
// order, still lose their repeats.
func TestWithinOrderedPushes(t *testing.T) {
	a := lokidata.Labels{{Name: "app", Value: "a"}}
	b := lokidata.Labels{{Name: "app", Value: "b"}}
	e := func(ts int64, line string) lokidata.Entry { return lokidata.Entry{TimestampNs: ts, Line: line} }
	for _, c := range []struct {
		name    string
		streams []lokidata.Stream
		want    []int
	}{
		{"ordered", []lokidata.Stream{{Labels: a, Entries: []lokidata.Entry{e(1, "x"), e(2, "x")}}, {Labels: b, Entries: []lokidata.Entry{e(1, "x")}}, {Labels: b}}, []int{2, 1}},
		{"stream sent twice", []lokidata.Stream{{Labels: a, Entries: []lokidata.Entry{e(1, "x"), e(2, "y")}}, {Labels: a, Entries: []lokidata.Entry{e(2, "y")}}}, []int{2}},
		{"out of order", []lokidata.Stream{{Labels: a, Entries: []lokidata.Entry{e(2, "x"), e(1, "y"), e(2, "x")}}}, []int{2}},
	} {
		got := Within(c.streams)
		var n []int
		for _, s := range got {
			n = append(n, len(s.Entries))
		}
		if len(n) != len(c.want) || (len(n) > 0 && n[0] != c.want[0]) || (len(n) > 1 && n[1] != c.want[1]) {
			t.Errorf("%s: entries per stream %v, want %v", c.name, n, c.want)
		}
	}
}
