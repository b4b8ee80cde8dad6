package exec

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/logsql"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/plan"
)

// rangeSeries is one label set's log samples in time order.
type rangeSeries struct {
	labels model.Labels
	ts     []int64
	bytes  []int64
}

// rangeAgg evaluates a range aggregation from the rows of its log query:
// at step t the window is (t-offset-range, t-offset].
func (ev *evaluator) rangeAgg(ctx context.Context, m *plan.RangeAgg) (value, error) {
	first, last := ev.steps[0], ev.steps[len(ev.steps)-1]
	lo, hi := first-m.Offset-m.Range+1, last-m.Offset
	series, err := ev.fetchSeries(ctx, m.Log, m.Hints, lo, hi)
	if err != nil {
		return value{}, err
	}
	out := value{vectors: make([][]sample, len(ev.steps))}
	sort.Slice(series, func(i, j int) bool { return series[i].labels.String() < series[j].labels.String() })
	for _, s := range series {
		start, end := 0, 0
		for i, t := range ev.steps {
			wlo, whi := t-m.Offset-m.Range, t-m.Offset
			for start < len(s.ts) && s.ts[start] <= wlo {
				start++
			}
			if end < start {
				end = start
			}
			for end < len(s.ts) && s.ts[end] <= whi {
				end++
			}
			if end > start {
				out.vectors[i] = append(out.vectors[i], sample{labels: s.labels, v: rangeValue(m, s, start, end)})
			}
		}
	}
	if m.Hints != nil && m.Hints.PreserveError {
		return out, nil
	}
	return out, pipelineError(out)
}

// PipelineError is Loki's answer to a metric sample still carrying
// __error__ (HTTP 400). Loki names whichever such series it meets first;
// vloki names the first by label string at the first step that has one.
type PipelineError struct {
	Series model.Labels
}

func (e *PipelineError) Error() string {
	kind, _ := e.Series.Get(errorLabel)
	return fmt.Sprintf("pipeline error: '%s' for series: '%s'.\n"+
		"Use a label filter to intentionally skip this error. (e.g | __error__!=\"%s\").\n"+
		"To skip all potential errors you can match empty errors.(e.g __error__=\"\")\n"+
		"The label filter can also be specified after unwrap. (e.g | unwrap latency | __error__=\"\" )\n",
		kind, e.Series.String(), kind)
}

// Status is the HTTP status Loki answers with.
func (e *PipelineError) Status() int { return http.StatusBadRequest }

func pipelineError(v value) error {
	for _, vec := range v.vectors {
		for _, s := range vec {
			if _, ok := s.labels.Get(errorLabel); ok {
				return &PipelineError{Series: s.labels}
			}
		}
	}
	return nil
}

func rangeValue(m *plan.RangeAgg, s *rangeSeries, start, end int) float64 {
	seconds := float64(m.Range) / 1e9
	switch m.Op {
	case "count_over_time":
		return float64(end - start)
	case "rate":
		return float64(end-start) / seconds
	}
	var b int64
	for _, n := range s.bytes[start:end] {
		b += n
	}
	if m.Op == "bytes_rate" {
		return float64(b) / seconds
	}
	return float64(b)
}

// fetchSeries reads the log query's rows in [lo, hi] and groups them by
// their full label set: stream labels and structured metadata, less the
// dropped labels.
func (ev *evaluator) fetchSeries(ctx context.Context, lq *plan.LogQuery, hints *plan.ParserHints, lo, hi int64) ([]*rangeSeries, error) {
	q := logsql.Query{
		Filter: logsql.And{logsql.TimeRange{Start: lo, End: hi}, lq.Pushdown},
		Pipes:  []logsql.Pipe{logsql.Delete{"_stream_id"}},
	}
	streams := newStreamCache()
	index := map[string]*rangeSeries{}
	err := ev.c.Query(ctx, ev.t, backend.QueryRequest{Query: q.String()}, func(r *backend.Row) error {
		row, err := toLogRow(r, streams)
		if err != nil {
			return err
		}
		st := entryState{row: &row, hints: hints}
		if !runStages(lq, &st) {
			return nil
		}
		labels := mergeLabels(mergeLabels(st.remaining(row.labels), st.remaining(row.metadata)), st.outputParsed())
		key := labels.String()
		s, ok := index[key]
		if !ok {
			s = &rangeSeries{labels: labels}
			index[key] = s
		}
		s.ts = append(s.ts, row.ts)
		s.bytes = append(s.bytes, int64(len(st.line)))
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*rangeSeries, 0, len(index))
	for _, s := range index {
		sortSeries(s)
		out = append(out, s)
	}
	return out, nil
}

func sortSeries(s *rangeSeries) {
	idx := make([]int, len(s.ts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.ts[idx[a]] < s.ts[idx[b]] })
	ts, bs := make([]int64, len(idx)), make([]int64, len(idx))
	for i, j := range idx {
		ts[i], bs[i] = s.ts[j], s.bytes[j]
	}
	s.ts, s.bytes = ts, bs
}
