package streamindex

import (
	"context"
	"fmt"
	"testing"

	"github.com/vloki/vloki/internal/lang/logql"
)

// BenchmarkIndexedOneHost selects the 100 streams of one host among
// 25,600 (the scale bench's high-cardinality set).
func BenchmarkIndexedOneHost(b *testing.B) {
	ix := New(Config{MaxStreams: 100_000, MaxLines: 10_000_000, Horizon: horizonAt(-1)})
	for h := range 256 {
		for s := range 100 {
			ls := lbls("agent", "benchmark", "bucketed_hostname", fmt.Sprintf("%02x", h), "cloud_region", fmt.Sprintf("r%d", s%10), "level", fmt.Sprintf("l%d", s/10))
			ix.Acked(tn, pushed(ls, int64(h*100+s+1)))
		}
	}
	m, err := logql.NewMatcher(logql.MatchEqual, "bucketed_hostname", "aa")
	if err != nil {
		b.Fatal(err)
	}
	ms := []*logql.Matcher{m}
	b.ResetTimer()
	for b.Loop() {
		n := 0
		ok, err := ix.Indexed(context.Background(), tn, ms, 0, 1<<62, func(e Entries) { n += len(e.Lines) })
		if !ok || err != nil || n != 100 {
			b.Fatal(ok, err, n)
		}
	}
}
