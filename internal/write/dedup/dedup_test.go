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
