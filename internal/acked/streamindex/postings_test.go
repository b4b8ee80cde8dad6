package streamindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
)

// TestPostingsSelectAsAScan: the streams Indexed hands for random
// selectors (equality, empty values, negations, regexps) are exactly
// those a scan of every stream matches, after pushes, a Forget and more
// pushes.
func TestPostingsSelectAsAScan(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 2))
	// A Forget answers from memory only for entries after its wall time.
	ix := New(Config{MaxStreams: 1000, MaxLines: 100_000, Horizon: horizonAt(-1), Now: func() time.Time { return time.Unix(0, 0) }})
	var pushedStreams []lokidata.Labels
	push := func(n int) {
		for range n {
			var ls lokidata.Labels
			for _, name := range []string{"a", "b", "c"} {
				if r.IntN(4) > 0 { // some streams lack a label
					ls = append(ls, lokidata.Label{Name: name, Value: fmt.Sprint(r.IntN(4))})
				}
			}
			if len(ls) == 0 {
				continue
			}
			ix.Acked(tn, pushed(ls, int64(1+r.IntN(100))))
			if !slices.ContainsFunc(pushedStreams, func(x lokidata.Labels) bool { return x.String() == ls.String() }) {
				pushedStreams = append(pushedStreams, ls)
			}
		}
	}
	matcher := func() *logql.Matcher {
		types := []logql.MatchType{logql.MatchEqual, logql.MatchEqual, logql.MatchNotEqual, logql.MatchRegexp, logql.MatchNotRegexp}
		values := []string{"", "0", "1", "2", "[12]", ".*"}
		m, err := logql.NewMatcher(types[r.IntN(len(types))], []string{"a", "b", "c", "d"}[r.IntN(4)], values[r.IntN(len(values))])
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	check := func() {
		for range 300 {
			ms := []*logql.Matcher{matcher()}
			if r.IntN(2) == 0 {
				ms = append(ms, matcher())
			}
			var got, want []string
			ok, err := ix.Indexed(context.Background(), tn, ms, 0, 1000, func(e Entries) { got = append(got, e.Labels.String()) })
			if !ok || err != nil {
				t.Fatal(ok, err)
			}
			for _, ls := range pushedStreams {
				if logql.MatchLabels(ms, ls.Get) {
					want = append(want, ls.String())
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%v: got %v, want %v", ms, got, want)
			}
		}
	}
	push(200)
	check()
	ix.Forget(tn)
	pushedStreams = nil
	push(100)
	check()
}
