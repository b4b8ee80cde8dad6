package patterns

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
)

// Lines without a leading space or multi-byte punctuation come back as
// they were from the punctuation tokenizer.
func TestPunctuationJoinRestoresLine(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "B", "7", " ", "  ", "=", ",", "[", "]", "(", ")", "\"", "'", ".", "-", ":", "/", "_", "+", "<", ">", "é", "日"}
	p := punctuation{maxLineLength}
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		b.WriteString("x")
		for j := r.Intn(40); j > 0; j-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		line := b.String()
		tokens, spaces, ok := p.tokenize(line)
		if !ok {
			t.Fatal(line)
		}
		if got := p.join(tokens, spaces); got != line {
			t.Fatalf("%q joined back as %q", line, got)
		}
	}
}

// Lines that differ only in some tokens end up in one cluster whose
// pattern has placeholders exactly there.
func TestLinesDifferingInTokensShareAPattern(t *testing.T) {
	m := NewMiner()
	for i := 0; i < 50; i++ {
		add(m, int64(i)*1e9, fmt.Sprintf("user %d logged in from host-%d via ssh", i, i%3), "info")
	}
	got := Prune(m.Series(nil, 0, 100_000, 10_000))
	if len(got) != 1 || got[0].Pattern != "user <_> logged in from <_> via ssh" || got[0].Level != "info" {
		t.Fatalf("%+v", got)
	}
	var n int64
	for _, s := range got[0].Samples {
		n += s.Count
	}
	if n != 50 {
		t.Fatalf("counted %d lines, pushed 50", n)
	}
}

// Rare patterns are pruned and the rest sorted by frequency.
func TestPruneKeepsFrequentPatterns(t *testing.T) {
	m := NewMiner()
	for i := 0; i < 100; i++ {
		add(m, int64(i)*1e9, fmt.Sprintf("job %d done in %d ms", i, i), "")
		if i%2 == 0 {
			add(m, int64(i)*1e9, fmt.Sprintf("cache miss for key k%d now", i), "")
		}
		if i%5 == 0 {
			add(m, int64(i)*1e9, fmt.Sprintf("disk %d almost full warning", i), "")
		}
	}
	got := Prune(m.Series(nil, 0, 200_000, 10_000))
	if len(got) != 2 || !strings.HasPrefix(got[0].Pattern, "job") || !strings.HasPrefix(got[1].Pattern, "cache") || got[0].Level != "unknown" {
		t.Fatalf("%+v", got)
	}
}

// BenchmarkMine100k clusters a budget's worth of mixed lines.
func BenchmarkMine100k(b *testing.B) {
	r := rand.New(rand.NewSource(2))
	lines := make([]string, 100_000)
	for i := range lines {
		switch i % 3 {
		case 0:
			lines[i] = fmt.Sprintf("GET /api/items/%d 200 %dms user=u%d", r.Intn(1e5), r.Intn(500), r.Intn(100))
		case 1:
			lines[i] = fmt.Sprintf(`level=info msg="charge ok" amount=%d card=c%d duration=%dms`, r.Intn(1000), r.Intn(4), r.Intn(900))
		default:
			lines[i] = fmt.Sprintf("worker %d finished job %x in %d.%ds", r.Intn(8), r.Int63(), r.Intn(10), r.Intn(10))
		}
	}
	b.ResetTimer()
	for range b.N {
		m := NewMiner()
		for s := range 3 {
			m.Add(lokidata.Labels{{Name: "s", Value: fmt.Sprint(s)}}, func(yield func(Line) bool) {
				for i := s; i < len(lines); i += 3 {
					if !yield(Line{int64(i) * 1e8, lines[i], "info"}) {
						return
					}
				}
			})
		}
		_ = Prune(m.Series(nil, 0, 1e7, 60_000))
	}
}

func add(m *Miner, ts int64, text, level string) {
	m.Add(lokidata.Labels{{Name: "s", Value: "s"}}, func(yield func(Line) bool) { yield(Line{ts, text, level}) })
}

// Counts older than the retained window are pruned (a minute at most
// after they fall out of it), and streams left without patterns are
// forgotten, as Loki's pattern ingester forgets them.
func TestLivePrunesRetainedWindow(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := NewLive[string](10, func() time.Time { return now })
	s := servedRequests(now)
	l.Push("t", []lokidata.Stream{s})
	from, through := now.UnixMilli(), now.Add(time.Hour).UnixMilli()
	if got, ok := l.Series("t", nil, from, through, 60_000); !ok || len(Prune(got)) != 1 {
		t.Fatalf("%v %+v", ok, got)
	}
	now = now.Add(Retain + 2*time.Minute)
	if got, ok := l.Series("t", nil, from, through, 60_000); !ok || len(got) != 0 || l.Streams() != 0 {
		t.Fatalf("after the retained window: %v %+v, %d streams", ok, got, l.Streams())
	}
}

// TestLiveForget: a tenant whose rows were deleted from storage loses its
// mined patterns and is mined from storage from then on.
func TestLiveForget(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := NewLive[string](10, func() time.Time { return now })
	s := servedRequests(now)
	l.Push("t", []lokidata.Stream{s})
	l.Push("u", []lokidata.Stream{s})
	l.Forget("t")
	from, through := now.UnixMilli(), now.Add(time.Hour).UnixMilli()
	if _, ok := l.Series("t", nil, from, through, 60_000); ok {
		t.Error("a forgotten tenant is answered from memory")
	}
	if got, ok := l.Series("u", nil, from, through, 60_000); !ok || len(Prune(got)) != 1 || l.Streams() != 1 {
		t.Errorf("another tenant: %v %+v, %d streams", ok, got, l.Streams())
	}
}

// TestLiveFullTenantLetsGo: a tenant whose new stream finds the bound
// reached is answered from storage from then on, so the live miner drops
// what it held of it, and its streams make room for another tenant.
func TestLiveFullTenantLetsGo(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := NewLive[string](2, func() time.Time { return now })
	stream := func(app string) lokidata.Stream {
		s := servedRequests(now)
		s.Labels = lokidata.Labels{{Name: "app", Value: app}}
		return s
	}
	l.Push("t", []lokidata.Stream{stream("a"), stream("b")})
	l.Push("t", []lokidata.Stream{stream("c")})
	from, through := now.UnixMilli(), now.Add(time.Hour).UnixMilli()
	if _, ok := l.Series("t", nil, from, through, 60_000); ok || l.Streams() != 0 {
		t.Fatalf("a full tenant: answered %v, %d streams held", ok, l.Streams())
	}
	l.Push("t", []lokidata.Stream{stream("a")})
	l.Push("u", []lokidata.Stream{stream("a"), stream("b")})
	if got, ok := l.Series("u", nil, from, through, 60_000); !ok || len(Prune(got)) != 1 || l.Streams() != 2 {
		t.Errorf("another tenant: %v %+v, %d streams", ok, got, l.Streams())
	}
}

// servedRequests is a stream of 40 lines of one pattern, a second apart
// from now.
func servedRequests(now time.Time) lokidata.Stream {
	var s lokidata.Stream
	s.Labels = lokidata.Labels{{Name: "app", Value: "a"}}
	for i := range 40 {
		s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: now.Add(time.Duration(i) * time.Second).UnixNano(), Line: fmt.Sprintf("request %d served in %d ms", i, i)})
	}
	return s
}

// The prefix tree is most of the miner's memory when lines rarely repeat
// (every cluster a path of nodes): a node costs well under 200 bytes (a
// map per node cost over 300), and the tree keeps no pushed line alive.
func TestTreeNodesAreSmall(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	word := func() string { return fmt.Sprintf("w%c%c", 'a'+r.Intn(26), 'a'+r.Intn(26)) }
	d := newDrain(punctuation{maxLineLength})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < 20000; i++ {
		words := make([]string, 12)
		for j := range words {
			words[j] = word()
		}
		// a line of 2 KB, of which the tree needs a few tokens
		d.train(strings.Join(words, " ")+" "+strings.Repeat("z", 2000), int64(i)*1e9, int64(i)*2*throttleFor)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	nodes := len(d.tree.nodes)
	perNode := float64(after.HeapAlloc-before.HeapAlloc) / float64(nodes)
	if nodes < 10000 || perNode > 200 {
		t.Fatalf("%d nodes, %.0f bytes of heap per node", nodes, perNode)
	}
	runtime.KeepAlive(d)
}

// TestPruneTreeKeepsLiveBranches: pruning leaves the tree a drain trained
// on the surviving lines alone would have, and the survivors are found
// again (their lines join them, no new cluster).
func TestPruneTreeKeepsLiveBranches(t *testing.T) {
	const hour = int64(3_600_000_000_000)
	old := func(i int) string { return fmt.Sprintf("old%d gone w%d x%d y%d z%d", i, i, i%3, i%5, i%7) }
	kept := []string{"kept line number one here", "kept other text with words", "kept line number one there"}
	d, alone := newDrain(punctuation{maxLineLength}), newDrain(punctuation{maxLineLength})
	for i := range 40 {
		d.train(old(i), int64(i)*1e9, int64(i)*1e9)
	}
	for i, l := range kept {
		d.train(l, 10*hour+int64(i)*1e9, 10*hour+int64(i)*1e9)
		alone.train(l, 10*hour+int64(i)*1e9, 10*hour+int64(i)*1e9)
	}
	before := len(d.tree.nodes)
	d.prune(5 * hour / 1e6)
	if len(d.tree.nodes) != len(alone.tree.nodes) || len(d.tree.edges) != len(alone.tree.edges) || len(d.tree.text) != len(alone.tree.text) {
		t.Fatalf("after pruning: %d nodes, %d edges, %d bytes of tokens (%d nodes before); trained on the survivors alone: %d, %d, %d",
			len(d.tree.nodes), len(d.tree.edges), len(d.tree.text), before, len(alone.tree.nodes), len(alone.tree.edges), len(alone.tree.text))
	}
	ids := d.lastID
	for _, l := range kept {
		if c := d.search(strings.Fields(l)); c == nil {
			t.Fatalf("%q: its cluster is not found after pruning", l)
		}
		d.train(l, 11*hour, 11*hour)
	}
	if d.lastID != ids || d.clusters.order.Len() != 2 {
		t.Fatalf("after pruning, the kept lines made clusters: last id %d (was %d), %d clusters", d.lastID, ids, d.clusters.order.Len())
	}
}
