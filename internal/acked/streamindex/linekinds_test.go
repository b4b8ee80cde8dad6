package streamindex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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

// TestLineKindsSavedAndRestored: marks survive a clean restart; a file
// without them (an older vloki's) leaves the restored rows' kinds unknown.
func TestLineKindsSavedAndRestored(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.json")
	ix := New(Config{MaxStreams: 10, Horizon: horizonAt(50)})
	a := lbls("app", "a")
	ix.Writing(ctx, tn, lines(a, map[int64]string{100: `x\y`}))
	ix.Acked(tn, lines(a, map[int64]string{100: `x\y`}))
	ix.Writing(ctx, tn, lines(lbls("app", "b"), map[int64]string{200: "plain"}))
	ix.Acked(tn, lines(lbls("app", "b"), map[int64]string{200: "plain"}))
	if err := ix.Save(path, 1); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	again := New(Config{MaxStreams: 10, Horizon: horizonAt(200)})
	if _, err := again.Load(path); err != nil {
		t.Fatal(err)
	}
	if k, ok, err := again.LineKinds(ctx, tn, nil, 60, 1000); err != nil || !ok || k != lokidata.LineEscapes {
		t.Errorf("restored kinds in [60, 1000]: %b %v %v", k, ok, err)
	}
	// The same file as an older vloki wrote it: no marks.
	old := strings.Replace(string(raw), `"marks_saved":true`, `"marks_saved":false`, 1)
	if old == string(raw) {
		t.Fatal("the file holds no marks_saved")
	}
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	older := New(Config{MaxStreams: 10, Horizon: horizonAt(200)})
	if _, err := older.Load(path); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := older.LineKinds(ctx, tn, nil, 60, 1000); ok {
		t.Error("kinds of restored rows answered without saved marks")
	}
	if k, ok, _ := older.LineKinds(ctx, tn, nil, 201, 1000); !ok || k != 0 {
		t.Errorf("kinds after the restored rows: %b %v", k, ok)
	}
}
