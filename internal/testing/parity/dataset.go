// Package parity measures how exactly vloki answers like Loki v3.7.8: a
// deterministic dataset, a corpus of requests, answers recorded from a real
// Loki as goldens, and a comparator that checks every byte that matters.
package parity

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
)

// Anchor is the dataset's fixed start: in the past, on a whole day.
var Anchor = time.Date(2025, 1, 15, 0, 0, 0, 0, time.UTC)

// Stream is one generated stream, entries in time order.
type Stream struct {
	Labels  lokidata.Labels
	Entries []lokidata.Entry
}

// generator writes one stream's lines.
type generator struct {
	labels []string // name, value pairs
	// every is the mean gap between entries; burst > 1 writes that many
	// entries per tick, several on one timestamp.
	every time.Duration
	burst int
	// burstUpTo > 1 writes between 1 and that many entries per tick.
	burstUpTo int
	line      func(r *rand.Rand, i int, ts time.Time) (string, lokidata.Labels)
}

// meanBurst is how many entries a tick writes on average.
func (g generator) meanBurst() float64 {
	if g.burstUpTo > 1 {
		return float64(g.burstUpTo+1) / 2
	}
	return float64(max(g.burst, 1))
}

// Generate builds the dataset: about `lines` entries over `span` from
// Anchor, the same for the same arguments.
func Generate(lines int, span time.Duration) []Stream {
	return generateAll(rand.New(rand.NewPCG(20250115, 42)), generators(), lines, span)
}

// generateAll writes every generator's stream, scaled so that they hold
// about `lines` entries together, sorted by labels.
func generateAll(r *rand.Rand, gens []generator, lines int, span time.Duration) []Stream {
	totalWeight := 0.0
	for _, g := range gens {
		totalWeight += float64(span) / float64(g.every) * g.meanBurst()
	}
	scale := float64(lines) / totalWeight
	var out []Stream
	for _, g := range gens {
		out = append(out, g.generate(r, span, scale))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Labels.String() < out[j].Labels.String() })
	return out
}

func (g generator) generate(r *rand.Rand, span time.Duration, scale float64) Stream {
	s := Stream{}
	for i := 0; i < len(g.labels); i += 2 {
		s.Labels = append(s.Labels, lokidata.Label{Name: g.labels[i], Value: g.labels[i+1]})
	}
	s.Labels.Sort()
	gap := time.Duration(float64(g.every) / scale)
	if gap < time.Millisecond {
		gap = time.Millisecond
	}
	n := 0
	for ts := Anchor; ts.Before(Anchor.Add(span)); {
		perTick := max(g.burst, 1)
		if g.burstUpTo > 1 {
			perTick = 1 + r.IntN(g.burstUpTo)
		}
		for b := 0; b < perTick; b++ {
			line, md := g.line(r, n, ts)
			s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: ts.UnixNano(), Line: line, StructuredMetadata: md})
			n++
		}
		ts = nextTick(r, ts, gap)
	}
	return s
}

// nextTick jitters the gap; about one tick in eight lands on a whole
// second, so step boundaries are hit exactly.
func nextTick(r *rand.Rand, ts time.Time, gap time.Duration) time.Time {
	next := ts.Add(gap/2 + time.Duration(r.Int64N(int64(gap))))
	if r.IntN(8) == 0 {
		next = next.Truncate(time.Second).Add(time.Second)
	}
	return next
}

func md(kv ...string) lokidata.Labels {
	var ls lokidata.Labels
	for i := 0; i < len(kv); i += 2 {
		ls = append(ls, lokidata.Label{Name: kv[i], Value: kv[i+1]})
	}
	return ls
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func trace(r *rand.Rand) lokidata.Labels {
	return md("trace_id", fmt.Sprintf("%032x", r.Uint64()), "span_id", fmt.Sprintf("%016x", r.Uint64()))
}

func levelWord(r *rand.Rand) string {
	return pick(r, "info", "info", "info", "debug", "warn", "error")
}
