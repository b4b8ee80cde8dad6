package metric

import (
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/vloki/vloki/internal/lokidata"
)

// budget bounds the bytes one metric query holds while it reads rows: the
// samples and per-group bucket totals it keeps until the whole range is
// read. A selector matching rows with unique structured metadata (trace
// ids) makes a series per row; without a bound such a query held
// gigabytes before max_query_series could refuse it. Sizes are estimates
// of the Go memory held, not of the answer.
type budget struct {
	max, used int64 // max 0: unlimited
}

// take accounts n more bytes; over the limit it fails the query with a
// LimitError (HTTP 400, as Loki's query size limits answer).
func (b *budget) take(n int64) error {
	b.used += n
	if b.max > 0 && b.used > b.max {
		return &LimitError{Msg: fmt.Sprintf("the query would hold too many bytes in memory (limit: %s); "+
			"consider adding more specific stream selectors, reducing the time range of the query, "+
			"or aggregating results with functions like sum(), count() or topk()", humanize.IBytes(uint64(b.max)))}
	}
	return nil
}

// Per-item sizes: a sample is a timestamp, a value, a stream fingerprint
// and an arrival number; a bucket cell an index and two totals; a label two string
// headers; a group or series its struct, slice headers and map entry.
const (
	sampleBytes = 8 + 8 + 8 + 8
	cellBytes   = 8 + 8 + 8
	labelBytes  = 32
	groupBytes  = 128
)

// labelsBytes estimates a label set's memory, its strings included.
func labelsBytes(ls lokidata.Labels) int64 {
	n := int64(groupBytes)
	for _, l := range ls {
		n += labelBytes + int64(len(l.Name)+len(l.Value))
	}
	return n
}
