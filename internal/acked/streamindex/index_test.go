package streamindex

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
)

var tn = tenant.ID{AccountID: 1}

func pushed(labels lokidata.Labels, ts ...int64) []lokidata.Stream {
	s := lokidata.Stream{Labels: labels}
	for _, x := range ts {
		s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: x, Line: "x"})
	}
	return []lokidata.Stream{s}
}

func lbls(kv ...string) lokidata.Labels {
	var ls lokidata.Labels
	for i := 0; i < len(kv); i += 2 {
		ls = append(ls, lokidata.Label{Name: kv[i], Value: kv[i+1]})
	}
	return ls
}

// horizonAt is a storage whose newest row is at ns (none when ns < 0).
func horizonAt(ns int64) HorizonFunc {
	return func(context.Context, tenant.ID) (int64, bool, error) { return ns, ns >= 0, nil }
}

func TestAnswerDecidesOrDefers(t *testing.T) {
	ix := New(Config{MaxStreams: 10, Horizon: horizonAt(-1)})
	ix.Prepare(context.Background(), tn)
	ix.Acked(tn, pushed(lbls("app", "a"), 100, 200))
	ix.Acked(tn, pushed(lbls("app", "b", "team", "red"), 150))
	ask := func(start, end int64, name string) ([]string, bool) {
		v, ok, err := ix.Answer(context.Background(), tn, Request{Start: start, End: end, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return v, ok
	}
	if v, ok := ask(90, 160, ""); !ok || !slices.Equal(v, []string{"app", "team"}) {
		t.Errorf("names in [90,160]: %v %v", v, ok)
	}
	// Between app=a's two entries: undecided, and it could add "a".
	if _, ok := ask(120, 140, "app"); ok {
		t.Error("a range between a stream's entries was answered from memory")
	}
	// ... but it adds no name b's stream does not give.
	if v, ok := ask(120, 160, ""); !ok || !slices.Equal(v, []string{"app", "team"}) {
		t.Errorf("names in [120,160]: %v %v", v, ok)
	}
	if v, ok := ask(201, 300, "app"); !ok || len(v) != 0 {
		t.Errorf("values after every entry: %v %v", v, ok)
	}
}

func TestHorizonKeepsOlderRowsToStorage(t *testing.T) {
	ix := New(Config{MaxStreams: 10, Horizon: horizonAt(500)})
	ix.Acked(tn, pushed(lbls("app", "a"), 600))
	if _, ok, _ := ix.Answer(context.Background(), tn, Request{Start: 400, End: 700}); ok {
		t.Error("a range reaching rows stored before the index was answered from memory")
	}
	if _, ok, _ := ix.Answer(context.Background(), tn, Request{Start: 501, End: 700}); !ok {
		t.Error("a range after the horizon went to storage")
	}
	ix.Failed(tn)
	ix.cfg.Horizon = horizonAt(650) // the failed push left a row at 650
	if _, ok, _ := ix.Answer(context.Background(), tn, Request{Start: 501, End: 700}); ok {
		t.Error("after a failed push the old horizon was trusted")
	}
}

func TestFullIndexDefers(t *testing.T) {
	ix := New(Config{MaxStreams: 1, Horizon: horizonAt(-1)})
	ix.Acked(tn, pushed(lbls("app", "a"), 100))
	ix.Acked(tn, pushed(lbls("app", "b"), 100))
	if _, ok, _ := ix.Answer(context.Background(), tn, Request{Start: 0, End: 200}); ok {
		t.Error("a tenant with a stream left out was answered from memory")
	}
}

func TestRetentionDefers(t *testing.T) {
	now := time.Unix(0, 10_000)
	ix := New(Config{MaxStreams: 10, Retention: 5000, Now: func() time.Time { return now }, Horizon: horizonAt(-1)})
	if _, ok, _ := ix.Answer(context.Background(), tn, Request{Start: 4000, End: 9000}); ok {
		t.Error("a range older than the retention was answered from memory")
	}
}

func TestSaveLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "index.json")
	ix := New(Config{MaxStreams: 10, Horizon: horizonAt(50)})
	ix.Prepare(context.Background(), tn)
	ix.Acked(tn, pushed(lbls("app", "a", "env", "prod"), 100, 200))
	if err := ix.Save(file, 1); err != nil {
		t.Fatal(err)
	}
	// The restarted index must not ask the storage: its horizon is saved.
	again := New(Config{MaxStreams: 10, Horizon: func(context.Context, tenant.ID) (int64, bool, error) {
		t.Error("horizon read although it was saved")
		return 0, false, nil
	}})
	if g, err := again.Load(file); err != nil || g != 1 {
		t.Fatalf("generation %d, %v", g, err)
	}
	if r := again.Restored()[tn]; r != 200 {
		t.Errorf("restored up to %d, want 200 (the newest row)", r)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the file survives its loading: %v", err)
	}
	m, _ := logql.NewMatcher(logql.MatchEqual, "env", "prod")
	v, ok, err := again.Answer(context.Background(), tn, Request{Matchers: []*logql.Matcher{m}, Start: 60, End: 150, Name: "app"})
	if err != nil || !ok || !slices.Equal(v, []string{"a"}) {
		t.Errorf("restored index: %v %v %v", v, ok, err)
	}
}

// Over its line budget the index drops its oldest lines and defers ranges
// reaching them to the storage; later ranges still count every line, late
// ones included, and a restart defers everything before it.
func TestLinesBudgetAndRestart(t *testing.T) {
	ix := New(Config{MaxStreams: 10, MaxLines: 8, Horizon: horizonAt(-1)})
	ix.Prepare(context.Background(), tn)
	for ts := int64(10); ts <= 100; ts += 10 {
		ix.Acked(tn, pushed(lbls("app", "a"), ts))
	}
	ix.Acked(tn, pushed(lbls("app", "a"), 95)) // late
	sum := func(start, end int64) (int64, bool) {
		var n int64
		ok, err := ix.Lines(context.Background(), tn, nil, start, end, func(_ lokidata.Labels, lines iter.Seq2[int64, int64]) {
			for _, b := range lines {
				n += b
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return n, ok
	}
	if ix.LinesKept() > 8 {
		t.Fatalf("%d lines kept over a budget of 8", ix.LinesKept())
	}
	if _, ok := sum(10, 100); ok {
		t.Fatal("a range reaching trimmed lines answered from memory")
	}
	if n, ok := sum(90, 100); !ok || n != 3 {
		t.Fatalf("[90, 100]: %d bytes, ok %v; want 3 lines of 1 byte", n, ok)
	}
	path := filepath.Join(t.TempDir(), "index.json")
	if err := ix.Save(path, 1); err != nil {
		t.Fatal(err)
	}
	re := New(Config{MaxStreams: 10, MaxLines: 8, Horizon: horizonAt(-1)})
	if _, err := re.Load(path); err != nil {
		t.Fatal(err)
	}
	ix = re
	ix.Acked(tn, pushed(lbls("app", "a"), 120))
	if _, ok := sum(90, 130); ok {
		t.Fatal("a range before the restart answered from memory")
	}
	if n, ok := sum(101, 130); !ok || n != 1 {
		t.Fatalf("[101, 130] after the restart: %d bytes, ok %v", n, ok)
	}
}

// TestForgetDefersToStorage: after rows were deleted from storage the
// index answers nothing it knew; the horizon is read again.
func TestForgetDefersToStorage(t *testing.T) {
	ix := New(Config{MaxStreams: 10, Horizon: horizonAt(-1)})
	ix.Prepare(context.Background(), tn)
	ix.Acked(tn, pushed(lbls("app", "a"), 100, 200))
	req := Request{Start: 50, End: 250, Name: "app"}
	if v, ok, _ := ix.Answer(context.Background(), tn, req); !ok || !slices.Equal(v, []string{"a"}) {
		t.Fatalf("before: %v %v", v, ok)
	}
	ix.Forget(tn)
	ix.cfg.Horizon = horizonAt(200) // the storage still holds rows up to 200
	if v, ok, _ := ix.Answer(context.Background(), tn, req); ok {
		t.Errorf("after Forget: answered %v from memory", v)
	}
	if ix.Streams() != 0 {
		t.Errorf("%d streams kept", ix.Streams())
	}
}

// TestHeldAt: which times a stream holds an entry at, known only after
// the horizon, from the lines kept (not before a trim's cut) and for a
// tenant the index does not give up on.
func TestHeldAt(t *testing.T) {
	ctx := context.Background()
	ix := New(Config{MaxStreams: 2, MaxLines: 100, Horizon: horizonAt(50)})
	ix.Prepare(ctx, tn)
	a := lbls("app", "a")
	ix.Acked(tn, pushed(a, 100, 300, 200))
	held, ok := ix.HeldAt(ctx, tn, a.String(), []int64{300, 150, 100, 301})
	if !ok || !slices.Equal(held, []bool{true, false, true, false}) {
		t.Errorf("held %v ok %v", held, ok)
	}
	if held, ok := ix.HeldAt(ctx, tn, lbls("app", "new").String(), []int64{100}); !ok || held[0] {
		t.Errorf("a stream never pushed: %v %v", held, ok)
	}
	if _, ok := ix.HeldAt(ctx, tn, a.String(), []int64{300, 40}); ok {
		t.Error("a time at or before the horizon (rows stored before the index) answered from memory")
	}
	ix.Acked(tn, pushed(lbls("app", "b"), 100))
	ix.Acked(tn, pushed(lbls("app", "c"), 100)) // past MaxStreams: the tenant is given up
	if _, ok := ix.HeldAt(ctx, tn, a.String(), []int64{300}); ok {
		t.Error("a full tenant answered from memory")
	}
	none := New(Config{MaxStreams: 2, Horizon: horizonAt(-1)}) // no lines kept
	none.Prepare(ctx, tn)
	none.Acked(tn, pushed(a, 100))
	if _, ok := none.HeldAt(ctx, tn, a.String(), []int64{100}); ok {
		t.Error("an index keeping no lines answered")
	}
}
