package logs

import (
	"slices"
	"sort"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/stages"
)

// Collector applies the local stages, de-duplication, interval and limit to
// rows arriving in direction order, and groups the survivors into streams.
type Collector struct {
	req      Request
	n        int // entries taken toward the limit
	emittedN int
	last     *logrow.Row // &lastRow once an entry was taken
	lastRow  logrow.Row  // a copy: the walker reuses its row buffer
	lastTs   int64
	emitted  bool
	streams  map[string]*lokidata.Stream
	stats    Stats
	// merged are the label sets of entries with structured metadata and
	// no parsed labels, by stream: a stream's entries mostly repeat their
	// metadata (detected_level), so each set is merged and written once.
	merged map[string][]mergedSet
}

// mergedSet is a stream's labels merged with one metadata set.
type mergedSet struct {
	metadata lokidata.Labels
	labels   lokidata.Labels
	key      string
}

// NewCollector collects the answer to req.
func NewCollector(req Request) *Collector {
	return &Collector{req: req, streams: map[string]*lokidata.Stream{}, merged: map[string][]mergedSet{}}
}

// Next is an empty collector for the same request that remembers the
// entry taken last (a duplicate of the last entry is still one).
func (c *Collector) Next() *Collector {
	n := NewCollector(c.req)
	n.last = c.last
	return n
}

func (c *Collector) full() bool     { return c.n >= c.req.Limit }
func (c *Collector) remaining() int { return c.req.Limit - c.n }

// addAll takes rows in direction order; the rows of one stream sharing a
// timestamp all come in one call.
func (c *Collector) addAll(rows []logrow.Row) {
	for i := 0; i < len(rows) && !c.full(); {
		j := i + 1
		for j < len(rows) && rows[j].TimestampNs == rows[i].TimestampNs && rows[j].Hash == rows[i].Hash {
			j++
		}
		if j == i+1 {
			c.Add(&rows[i])
		} else {
			c.addTied(rows[i:j])
		}
		i = j
	}
}

// Add takes one row, the next in direction order.
func (c *Collector) Add(r *logrow.Row) {
	if c.process(r) {
		c.n++
		c.take(r)
	}
}

// ingesterBatch is how many entries Loki's ingester sends its querier in
// one message (queryBatchSize).
const ingesterBatch = 128

// addTied takes the entries of one stream sharing a timestamp in the
// order Loki's querier gives them. Its ingester reads them in arrival
// order (as blocks cut from the head block hold them; the head block
// itself, a stream's newest 256 KB, yields them by label), drops an entry
// equal to an earlier one of the group after the pipeline (same line,
// metadata and parsed labels: the ingester merges what it holds with the
// store, de-duplicating), takes them up to the limit and sends them in
// messages of ingesterBatch entries; the querier merges each message's
// entries by their labels after the pipeline (stream labels, structured
// metadata and parsed labels, as one label string), keeping the
// ingester's order among equals.
func (c *Collector) addTied(rows []logrow.Row) {
	type tied struct {
		row    *logrow.Row
		batch  int
		labels string
	}
	kept := make([]tied, 0, len(rows))
	seen := make(map[string]bool, len(rows))
	for i := 0; i < len(rows) && !c.full(); i++ {
		r := &rows[i]
		if !c.process(r) {
			continue
		}
		id := r.Out + "\x00" + r.OutMetadata.String() + "\x00" + r.Parsed.String()
		if seen[id] {
			continue
		}
		seen[id] = true
		batch := c.n / ingesterBatch
		c.n++
		kept = append(kept, tied{r, batch, logrow.MergeLabels(logrow.MergeLabels(r.OutLabels, r.OutMetadata), r.Parsed).String()})
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].batch != kept[j].batch {
			return kept[i].batch < kept[j].batch
		}
		return kept[i].labels < kept[j].labels
	})
	for _, t := range kept {
		c.take(t.row)
	}
}

// process runs the local stages on r; false: the pipeline dropped it.
func (c *Collector) process(r *logrow.Row) bool {
	c.stats.LinesProcessed++
	c.stats.BytesProcessed += len(r.Line)
	st := stages.Entry{Row: r, Early: c.req.Query.Early}
	if !stages.Run(c.req.Query, &st) {
		return false
	}
	r.Parsed = st.OutputParsed()
	r.Out = st.Line
	r.OutLabels, r.OutMetadata = st.Remaining(r.Labels), st.Remaining(r.Metadata)
	return true
}

// take applies the interval to a processed entry counted toward the
// limit and adds it to its stream (duplicates share a timestamp: addTied
// drops them). Loki takes the first `limit` entries, then drops those the
// interval rule rejects: the limit counts entries before the interval
// applies.
func (c *Collector) take(r *logrow.Row) {
	c.lastRow = *r
	c.last = &c.lastRow
	if !c.intervalAllows(r.TimestampNs) {
		return
	}
	c.lastTs, c.emitted = r.TimestampNs, true
	c.emittedN++
	c.append(r)
}

// intervalAllows applies Loki's interval rule, shared across streams.
func (c *Collector) intervalAllows(ts int64) bool {
	iv := c.req.IntervalNs
	if iv == 0 || !c.emitted {
		return true
	}
	if c.req.Direction == Forward {
		return ts >= c.lastTs+iv
	}
	return ts <= c.lastTs-iv
}

func (c *Collector) append(r *logrow.Row) {
	labels, key := r.OutLabels, r.Key
	metadata := r.OutMetadata
	if len(labels) != len(r.Labels) {
		key = labels.String()
	}
	e := lokidata.Entry{TimestampNs: r.TimestampNs, Line: r.Out}
	switch {
	case c.req.Categorize:
		e.StructuredMetadata, e.Parsed = metadata, r.Parsed
	case len(r.Parsed) == 0 && len(metadata) > 0:
		labels, key = c.mergeMetadata(key, labels, metadata)
	case len(metadata) > 0 || len(r.Parsed) > 0:
		labels = logrow.MergeLabels(logrow.MergeLabels(labels, metadata), r.Parsed)
		key = labels.String()
		if c.req.KeepParsed {
			e.Parsed = r.Parsed
		}
	}
	s, ok := c.streams[key]
	if !ok {
		s = &lokidata.Stream{Labels: labels}
		c.streams[key] = s
	}
	s.Entries = append(s.Entries, e)
}

// mergeMetadata is the stream's labels (label string key) merged with
// metadata, and their string, merged once per stream and metadata set.
func (c *Collector) mergeMetadata(key string, labels, metadata lokidata.Labels) (lokidata.Labels, string) {
	sets := c.merged[key]
	for _, m := range sets {
		if slices.Equal(m.metadata, metadata) {
			return m.labels, m.key
		}
	}
	m := mergedSet{metadata: metadata, labels: logrow.MergeLabels(labels, metadata)}
	m.key = m.labels.String()
	if len(sets) < maxMergedSets {
		c.merged[key] = append(sets, m)
	}
	return m.labels, m.key
}

// maxMergedSets bounds the sets kept a stream: metadata unique to each
// entry (a trace id) would make the look-up a scan of them all.
const maxMergedSets = 8

// Result is the streams collected so far, by label string, with the
// query's stats.
func (c *Collector) Result() *Result {
	keys := make([]string, 0, len(c.streams))
	for k := range c.streams {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := &Result{Streams: make([]lokidata.Stream, 0, len(keys)), Stats: c.stats}
	for _, k := range keys {
		out.Streams = append(out.Streams, *c.streams[k])
	}
	out.Stats.EntriesReturned = c.emittedN
	return out
}
