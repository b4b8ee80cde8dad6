// Package patterns mines log patterns as Loki's pattern ingester does
// (Drain per stream and level, Loki's tokenizers, 10 s sample buckets),
// from lines read at query time instead of at ingestion.
package patterns

import (
	"iter"
	"sort"
	"strings"

	"github.com/vloki/vloki/internal/lokidata"
)

// levels are Loki's detected_level values; any other level is mined and
// reported as unknown.
var levels = map[string]bool{
	"unknown": true, "debug": true, "info": true, "warn": true,
	"error": true, "fatal": true, "critical": true, "trace": true,
}

// Miner trains one Drain per stream and level on lines fed in order
// per stream.
type Miner struct {
	streams map[string]*stream
	// clock is the time (Unix ns) Drain's eviction throttle counts in for
	// a line at ts: the lines' own time when mining stored lines, the wall
	// clock when mining pushes as they come (as Loki does).
	clock func(ts int64) int64
}

type stream struct {
	labels lokidata.Labels
	tok    tokenizer
	lastTs int64
	drains map[string]*drain
}

// NewMiner starts an empty miner for stored lines.
func NewMiner() *Miner {
	return &Miner{streams: map[string]*stream{}, clock: func(ts int64) int64 { return ts }}
}

// Line is one entry to mine: its time (Unix ns), text and detected_level.
type Line struct {
	TsNano int64
	Text   string
	Level  string
}

// Add trains on lines of the stream with the given labels, in order. The
// stream's first line decides its format; lines older than the stream's
// newest are skipped, as Loki skips them.
func (m *Miner) Add(ls lokidata.Labels, lines iter.Seq[Line]) {
	key := ls.String()
	for l := range lines {
		m.add(key, ls, l.TsNano, l.Text, l.Level)
	}
}

func (m *Miner) add(streamKey string, ls lokidata.Labels, tsNano int64, line, level string) {
	s, ok := m.streams[streamKey]
	if !ok {
		s = &stream{labels: ls, tok: tokenizerFor(detectFormat(line), maxLineLength), drains: map[string]*drain{}}
		m.streams[streamKey] = s
	}
	if tsNano < s.lastTs {
		return
	}
	s.lastTs = tsNano
	level = strings.ToLower(level)
	if !levels[level] {
		level = "unknown"
	}
	d, ok := s.drains[level]
	if !ok {
		d = newDrain(s.tok)
		s.drains[level] = d
	}
	d.train(line, tsNano, m.clock(tsNano))
}

// Series is one pattern of one level with its counts.
type Series struct {
	Pattern string
	Level   string
	Samples []Sample
}

type seriesKey struct{ pattern, level string }

// Series reports every pattern's buckets in [from, through) (ms), at the
// step (at least the 10 s sample interval), summed over the streams match
// accepts (nil: all) and over clusters with the same text. Empty patterns
// are left out.
func (m *Miner) Series(match func(lokidata.Labels) bool, from, through, step int64) []Series {
	step = max(step, sampleInterval)
	sums := map[seriesKey]map[int64]int64{}
	for _, s := range m.streams {
		if match != nil && !match(s.labels) {
			continue
		}
		for level, d := range s.drains {
			for _, c := range d.clusters.all() {
				p := d.pattern(c)
				if p == "" {
					continue
				}
				k := seriesKey{p, level}
				c.samples.forRange(from, through, step, func(smp Sample) {
					if sums[k] == nil {
						sums[k] = map[int64]int64{}
					}
					sums[k][smp.Ts] += smp.Count
				})
			}
		}
	}
	out := make([]Series, 0, len(sums))
	for k, byTs := range sums {
		ser := Series{Pattern: k.pattern, Level: k.level, Samples: make([]Sample, 0, len(byTs))}
		for ts, n := range byTs {
			ser.Samples = append(ser.Samples, Sample{ts, n})
		}
		sort.Slice(ser.Samples, func(i, j int) bool { return ser.Samples[i].Ts < ser.Samples[j].Ts })
		out = append(out, ser)
	}
	return out
}
