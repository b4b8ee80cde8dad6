package exec

import (
	"sort"

	"github.com/vloki/vloki/internal/model"
)

// collector applies the local stages, de-duplication, interval and limit to
// rows arriving in direction order, and groups the survivors into streams.
type collector struct {
	req      LogRequest
	n        int // entries taken toward the limit
	emittedN int
	last     *logRow // &lastRow once an entry was taken
	lastRow  logRow  // a copy: the walker reuses its row buffer
	lastTs   int64
	emitted  bool
	streams  map[string]*model.Stream
	stats    Stats
}

func newCollector(req LogRequest) *collector {
	return &collector{req: req, streams: map[string]*model.Stream{}}
}

func (c *collector) full() bool     { return c.n >= c.req.Limit }
func (c *collector) remaining() int { return c.req.Limit - c.n }

func (c *collector) addAll(rows []logRow) {
	for i := range rows {
		if c.full() {
			return
		}
		c.add(&rows[i])
	}
}

func (c *collector) add(r *logRow) {
	c.stats.LinesProcessed++
	c.stats.BytesProcessed += len(r.line)
	st := entryState{row: r, early: c.req.Query.Early}
	if !runStages(c.req.Query, &st) {
		return
	}
	r.parsed = st.outputParsed()
	r.out = st.line
	r.outLabels, r.outMetadata = st.remaining(r.labels), st.remaining(r.metadata)
	if c.isDuplicate(r) {
		return
	}
	// Loki takes the first `limit` entries, then drops those the interval
	// rule rejects: the limit counts entries before the interval applies.
	c.lastRow = *r
	c.last = &c.lastRow
	c.n++
	if !c.intervalAllows(r.ts) {
		return
	}
	c.lastTs, c.emitted = r.ts, true
	c.emittedN++
	c.append(r)
}

// isDuplicate reports an entry equal to the previous one: same stream,
// timestamp, line and metadata, which Loki de-duplicates.
func (c *collector) isDuplicate(r *logRow) bool {
	p := c.last
	return p != nil && p.ts == r.ts && p.key == r.key && p.line == r.line && equalLabels(p.metadata, r.metadata)
}

// intervalAllows applies Loki's interval rule, shared across streams.
func (c *collector) intervalAllows(ts int64) bool {
	iv := c.req.IntervalNs
	if iv == 0 || !c.emitted {
		return true
	}
	if c.req.Direction == Forward {
		return ts >= c.lastTs+iv
	}
	return ts <= c.lastTs-iv
}

func (c *collector) append(r *logRow) {
	labels, key := r.outLabels, r.key
	metadata := r.outMetadata
	if len(labels) != len(r.labels) {
		key = labels.String()
	}
	e := model.Entry{TimestampNs: r.ts, Line: r.out}
	if c.req.Categorize {
		e.StructuredMetadata, e.Parsed = metadata, r.parsed
	} else if len(metadata) > 0 || len(r.parsed) > 0 {
		labels = mergeLabels(mergeLabels(labels, metadata), r.parsed)
		key = labels.String()
	}
	s, ok := c.streams[key]
	if !ok {
		s = &model.Stream{Labels: labels}
		c.streams[key] = s
	}
	s.Entries = append(s.Entries, e)
}

func (c *collector) result() *LogResult {
	keys := make([]string, 0, len(c.streams))
	for k := range c.streams {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := &LogResult{Streams: make([]model.Stream, 0, len(keys)), Stats: c.stats}
	for _, k := range keys {
		out.Streams = append(out.Streams, *c.streams[k])
	}
	out.Stats.EntriesReturned = c.emittedN
	return out
}

func equalLabels(a, b model.Labels) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// mergeLabels adds metadata to stream labels; a stream label wins a clash.
func mergeLabels(stream, extra model.Labels) model.Labels {
	out := make(model.Labels, 0, len(stream)+len(extra))
	out = append(out, stream...)
	for _, l := range extra {
		if _, ok := stream.Get(l.Name); !ok {
			out = append(out, l)
		}
	}
	out.Sort()
	return out
}
