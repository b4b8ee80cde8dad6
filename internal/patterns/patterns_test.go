package patterns

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
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
		m.Add("s", int64(i)*1e9, fmt.Sprintf("user %d logged in from host-%d via ssh", i, i%3), "info")
	}
	got := Prune(m.Series(0, 100_000, 10_000))
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
		m.Add("s", int64(i)*1e9, fmt.Sprintf("job %d done in %d ms", i, i), "")
		if i%2 == 0 {
			m.Add("s", int64(i)*1e9, fmt.Sprintf("cache miss for key k%d now", i), "")
		}
		if i%5 == 0 {
			m.Add("s", int64(i)*1e9, fmt.Sprintf("disk %d almost full warning", i), "")
		}
	}
	got := Prune(m.Series(0, 200_000, 10_000))
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
		for i, l := range lines {
			m.Add(fmt.Sprint(i%3), int64(i)*1e8, l, "info")
		}
		_ = Prune(m.Series(0, 1e7, 60_000))
	}
}
