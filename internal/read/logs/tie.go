package logs

import "context"

// Walked is a finished walk.
type Walked struct{ w *walker }

// CutsTie reports whether entries passing the pipeline at the last
// collected timestamp were left out by the limit (the answer then depends
// on how Loki's frontend merges its splits).
func (d *Walked) CutsTie(ctx context.Context) (bool, error) {
	w := d.w
	col := w.col
	if !col.full() || col.last == nil || w.req.IntervalNs != 0 {
		return false, nil
	}
	ts := col.last.TimestampNs
	// The collector holding every entry the index has at ts holds every
	// row there: nothing was left out, and the storage need not be asked.
	if n, ok, err := w.indexCountAt(ctx, ts); err != nil || (ok && n <= countAt(col, ts)) {
		return false, err
	}
	rows, err := w.fetch(ctx, ts, ts, 0)
	if err != nil {
		return false, err
	}
	w.sortRows(rows)
	all := Request{Query: w.req.Query, Limit: len(rows) + 1, Direction: w.req.Direction, Categorize: w.req.Categorize}
	probe := NewCollector(all)
	probe.addAll(rows)
	return probe.emittedN > countAt(col, ts), nil
}

func countAt(c *Collector, ts int64) int {
	n := 0
	for _, s := range c.streams {
		for _, e := range s.Entries {
			if e.TimestampNs == ts {
				n++
			}
		}
	}
	return n
}
