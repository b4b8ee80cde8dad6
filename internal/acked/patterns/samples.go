package patterns

import "sort"

// Sample is a count of lines in one time bucket (milliseconds).
type Sample struct {
	Ts    int64
	Count int64
}

// chunks keep a cluster's counts in sampleInterval buckets, a new chunk
// starting once a bucket is maxChunkAge past the chunk's first, as in
// Loki's pattern ingester. Rescaling to a query step happens per chunk.
type chunks struct {
	list           [][]Sample
	sampleInterval int64
	maxChunkAge    int64
}

func (c *chunks) add(tsMs int64) {
	t := tsMs - tsMs%c.sampleInterval
	if len(c.list) == 0 {
		c.list = append(c.list, []Sample{{t, 1}})
		return
	}
	last := c.list[len(c.list)-1]
	tail := &last[len(last)-1]
	switch {
	case tail.Ts == t:
		tail.Count++
	case t-last[0].Ts >= c.maxChunkAge:
		c.list = append(c.list, []Sample{{t, 1}})
	case tsMs < tail.Ts:
		// older than the chunk's newest bucket: Loki drops it
	default:
		c.list[len(c.list)-1] = append(last, Sample{t, 1})
	}
}

// forRange gives each chunk's buckets in [from, through), rescaled to
// step buckets when step is not the sample interval: every step from the
// first to the last bucket is present, empty ones with count 0.
func (c *chunks) forRange(from, through, step int64, emit func(Sample)) {
	for _, ch := range c.list {
		chunkForRange(ch, from, through, step, c.sampleInterval, emit)
	}
}

func chunkForRange(ch []Sample, from, through, step, sampleInterval int64, emit func(Sample)) {
	first, last := ch[0].Ts, ch[len(ch)-1].Ts
	if from >= through || first >= through || last < from {
		return
	}
	lo := sort.Search(len(ch), func(i int) bool { return ch[i].Ts >= from })
	hi := len(ch) // Loki keeps a chunk's last bucket when it falls on through
	if through < last {
		hi = sort.Search(len(ch), func(i int) bool { return ch[i].Ts >= through })
	}
	if lo >= hi {
		return
	}
	if step == sampleInterval {
		for _, s := range ch[lo:hi] {
			emit(s)
		}
		return
	}
	bucket := Sample{Ts: ch[lo].Ts - ch[lo].Ts%step}
	for _, s := range ch[lo:hi] {
		for s.Ts >= bucket.Ts+step {
			emit(bucket)
			bucket = Sample{Ts: bucket.Ts + step}
		}
		bucket.Count += s.Count
	}
	emit(bucket)
}
