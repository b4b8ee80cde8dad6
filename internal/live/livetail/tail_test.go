package livetail

import (
	"testing"
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
)

func tailPlan(t *testing.T, q string) *plan.LogQuery {
	t.Helper()
	sel, err := logql.ParseLogSelector(q, true)
	if err != nil {
		t.Fatal(err)
	}
	lq, err := plan.CompileLog(sel, nil)
	if err != nil {
		t.Fatal(err)
	}
	return lq
}

func tailRow(ts int64, line string) logrow.Row {
	ls := lokidata.Labels{{Name: "app", Value: "a"}}
	return logrow.Row{Labels: ls, Key: ls.String(), Hash: ls.Hash(), TimestampNs: ts, Line: line}
}

func lines(entries []lokidata.Stream) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Entries[0].Line)
	}
	return out
}

func TestTailHandsOverFromHistory(t *testing.T) {
	tl := New(tailPlan(t, `{app="a"}`), false, 0, 0, false)
	now := time.Unix(1000, 0)
	tl.add(sourcedRow{row: tailRow(10, "cut by the limit"), backlog: true})
	tl.add(sourcedRow{row: tailRow(20, "in history"), backlog: true})
	tl.add(sourcedRow{row: tailRow(25, "missed by history"), backlog: true})
	tl.add(sourcedRow{row: tailRow(5, "pushed live, out of order"), backlog: false})
	if got, _ := tl.Take(now); len(got) != 0 {
		t.Fatalf("released before the history: %q", lines(got))
	}
	hist := Entries([]lokidata.Stream{{Labels: lokidata.Labels{{Name: "app", Value: "a"}}, Entries: []lokidata.Entry{{TimestampNs: 20, Line: "in history"}}}})
	tl.SetHistory(hist, true, now)
	got, _ := tl.Take(now)
	want := []string{"pushed live, out of order", "missed by history"}
	if g := lines(got); len(g) != 2 || g[0] != want[0] || g[1] != want[1] {
		t.Fatalf("got %q, want %q", g, want)
	}
}

func TestTailHoldsEntriesUntilDue(t *testing.T) {
	now := time.Unix(1000, 0)
	tl := New(tailPlan(t, `{app="a"}`), false, 0, 2*time.Second, false)
	tl.SetHistory(nil, false, now)
	tl.add(sourcedRow{row: tailRow(now.Add(-3*time.Second).UnixNano(), "due")})
	tl.add(sourcedRow{row: tailRow(now.Add(-time.Second).UnixNano(), "held")})
	got, next := tl.Take(now)
	if g := lines(got); len(g) != 1 || g[0] != "due" {
		t.Fatalf("got %q", g)
	}
	if want := now.Add(time.Second); !next.Equal(want) {
		t.Fatalf("next %v, want %v", next, want)
	}
	got, next = tl.Take(now.Add(1001 * time.Millisecond))
	if g := lines(got); len(g) != 1 || g[0] != "held" || !next.IsZero() {
		t.Fatalf("got %q, next %v", g, next)
	}
}

func TestTailRemembersAcrossSources(t *testing.T) {
	now := time.Unix(1000, 0)
	tl := New(tailPlan(t, `{app="a"} |= "x"`), false, 0, 0, true)
	tl.SetHistory(nil, false, now)
	tl.add(sourcedRow{row: tailRow(1, "x once")})
	tl.add(sourcedRow{row: tailRow(2, "y filtered")})
	got, _ := tl.Take(now)
	tl.add(sourcedRow{row: tailRow(1, "x once"), backlog: true})
	again, _ := tl.Take(now)
	if g := lines(got); len(g) != 1 || g[0] != "x once" || len(again) != 0 {
		t.Fatalf("first %q, again %q", g, lines(again))
	}
}
