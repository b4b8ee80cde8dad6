package streamindex

import (
	"context"
	"fmt"
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
)

// TestStreamSpansListsTheRangesStreams: the matching streams whose entries
// span part of the range, with that span; none answered when a stream
// was left out or the storage holds older rows.
func TestStreamSpansListsTheRangesStreams(t *testing.T) {
	ix := New(Config{MaxStreams: 3, Horizon: horizonAt(50)})
	ix.Acked(tn, pushed(lbls("app", "a", "pod", "1"), 100, 200))
	ix.Acked(tn, pushed(lbls("app", "a", "pod", "2"), 300))
	ix.Acked(tn, pushed(lbls("app", "b"), 150))
	list := func(start, end int64) (string, bool) {
		var got string
		ms := []*logql.Matcher{{Type: logql.MatchEqual, Name: "app", Value: "a"}}
		ok, err := ix.StreamSpans(context.Background(), tn, ms, start, end, func(ls lokidata.Labels, lo, hi int64) {
			got += fmt.Sprintf("%s %d-%d;", ls, lo, hi)
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, ok
	}
	if got, ok := list(120, 250); !ok || got != `{app="a", pod="1"} 100-200;` {
		t.Errorf("[120, 250]: %q %v", got, ok)
	}
	if got, ok := list(201, 299); !ok || got != "" {
		t.Errorf("[201, 299]: %q %v", got, ok)
	}
	if _, ok := list(40, 250); ok {
		t.Error("a range reaching rows stored before the index was answered")
	}
	ix.Acked(tn, pushed(lbls("app", "c"), 100))
	ix.Acked(tn, pushed(lbls("app", "d"), 100))
	if _, ok := list(120, 250); ok {
		t.Error("a tenant with a stream left out was answered")
	}
}
