package streamindex

import (
	"context"
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
)

func lines(labels lokidata.Labels, at map[int64]string) []lokidata.Stream {
	s := lokidata.Stream{Labels: labels}
	for ts, l := range at {
		s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: ts, Line: l})
	}
	return []lokidata.Stream{s}
}

// TestLineKinds: the kinds of lines a push is about to write are known
// before it is acknowledged, per stream and over the span of the marked
// entries; a range the index does not cover is not answered.
func TestLineKinds(t *testing.T) {
	ctx := context.Background()
	ix := New(Config{MaxStreams: 3, Horizon: horizonAt(50)})
	a, b := lbls("app", "a"), lbls("app", "b")
	ix.Writing(ctx, tn, lines(a, map[int64]string{100: `x\y`, 200: "plain", 300: `z\`}))
	ix.Writing(ctx, tn, lines(b, map[int64]string{150: "é", 400: "plain"}))
	ask := func(start, end int64, ms ...*logql.Matcher) (lokidata.LineKinds, bool) {
		k, ok, err := ix.LineKinds(ctx, tn, ms, start, end)
		if err != nil {
			t.Fatal(err)
		}
		return k, ok
	}
	appA := &logql.Matcher{Type: logql.MatchEqual, Name: "app", Value: "a"}
	appB := &logql.Matcher{Type: logql.MatchEqual, Name: "app", Value: "b"}
	for _, c := range []struct {
		start, end int64
		ms         []*logql.Matcher
		want       lokidata.LineKinds
	}{
		{60, 1000, nil, lokidata.LineEscapes | lokidata.LineNonASCII},
		{60, 1000, []*logql.Matcher{appA}, lokidata.LineEscapes},
		{60, 1000, []*logql.Matcher{appB}, lokidata.LineNonASCII},
		{200, 250, []*logql.Matcher{appA}, lokidata.LineEscapes}, // inside the span of a's marked entries
		{301, 1000, nil, 0},
		{60, 99, nil, 0},
		{150, 150, []*logql.Matcher{appB}, lokidata.LineNonASCII},
	} {
		if k, ok := ask(c.start, c.end, c.ms...); !ok || k != c.want {
			t.Errorf("kinds in [%d, %d] %v: %b %v, want %b", c.start, c.end, c.ms, k, ok, c.want)
		}
	}
	// Rows at or before the storage's newest row when the index began are
	// not the index's to tell.
	if _, ok := ask(50, 1000); ok {
		t.Error("a range reaching rows stored before the index was answered")
	}
	// A stream the index cannot keep marks of makes the tenant unknown.
	ix.Writing(ctx, tn, lines(lbls("app", "c"), map[int64]string{500: `\`}))
	ix.Writing(ctx, tn, lines(lbls("app", "d"), map[int64]string{500: `\`}))
	if _, ok := ask(60, 1000); ok {
		t.Error("answered past MaxStreams marked streams")
	}
}
