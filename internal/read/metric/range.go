package metric

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/read/stages"
	"github.com/vloki/vloki/internal/storage/backend"
)

// rangeSeries is one label set's samples in time order: an entry's value
// is its unwrapped label, or its line's length in bytes.
type rangeSeries struct {
	labels lokidata.Labels
	ts     []int64
	vals   []float64
	// streams holds each sample's stream fingerprint: Loki merges streams
	// by timestamp, then by fingerprint, and float sums follow that order;
	// seqs the arrival numbers (schema.SeqField) that order a stream's
	// samples sharing a timestamp (first_over_time takes the first to
	// arrive, last_over_time the last).
	streams []uint64
	seqs    []uint64
}

// rangeAgg evaluates a range aggregation from the rows of its log query:
// at step t the window is (t-offset-range, t-offset].
func (ev *evaluator) rangeAgg(ctx context.Context, m *plan.RangeAgg) (value, error) {
	if v, ok, err := ev.indexedWindows(ctx, m); ok || err != nil {
		return v, err
	}
	if m.StreamBucketable() {
		if v, ok, err := ev.streamBuckets(ctx, m); ok || err != nil {
			return v, err
		}
	}
	series, ok, err := ev.frozenSeries(ctx, m, ev.fetchSeries)
	if err != nil {
		return value{}, err
	}
	if !ok {
		if series, err = ev.fetchSeries(ctx, m, ev.readFilters(m, ev.readBatches(m, sparseRowsRatio))); err != nil {
			return value{}, err
		}
	}
	return ev.rangeWindows(m, series)
}

// rangeWindows evaluates the range aggregation's windows over its series'
// samples.
func (ev *evaluator) rangeWindows(m *plan.RangeAgg, series []*rangeSeries) (value, error) {
	eval := rangeEvals[m.Op]
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
				out.vectors[i] = append(out.vectors[i], sample{labels: s.labels, v: eval.window(m, s.ts[start:end], s.vals[start:end])})
			}
		}
	}
	if err := pipelineError(out); err != nil {
		return value{}, err
	}
	if eval.steps != nil {
		return eval.steps(m, out), nil
	}
	return out, nil
}

// absentSteps turns the steps without any sample into one sample of value
// 1 labelled as absent_over_time's, and the others into none.
func absentSteps(m *plan.RangeAgg, v value) value {
	for i, vec := range v.vectors {
		if len(vec) > 0 {
			v.vectors[i] = nil
		} else {
			v.vectors[i] = []sample{{labels: m.AbsentLabels, v: 1}}
		}
	}
	return v
}

// PipelineError is Loki's answer to a metric sample still carrying
// __error__ (HTTP 400). Loki names whichever such series it meets first;
// vloki names the first by label string at the first step that has one.
type PipelineError struct {
	Series lokidata.Labels
}

func (e *PipelineError) Error() string {
	kind, _ := e.Series.Get(stages.ErrorLabel)
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
			_, failed := s.labels.Get(stages.ErrorLabel)
			if preserved, _ := s.labels.Get(stages.PreserveErrorLabel); failed && preserved != "true" {
				return &PipelineError{Series: s.labels}
			}
		}
	}
	return nil
}

// fetchSeries reads the log query's rows, one query per time filter, and
// groups their samples by label set: stream labels, structured metadata
// and parsed labels, less the dropped ones, reduced to the range
// aggregation's grouping. The filters' ranges are disjoint, so samples
// sharing a timestamp come from one query, in its order.
func (ev *evaluator) fetchSeries(ctx context.Context, m *plan.RangeAgg, times []logsql.Filter) ([]*rangeSeries, error) {
	lq := m.Log
	pipes := []logsql.Pipe{logsql.Delete{"_stream_id"}}
	if fs := m.FetchFields(); fs != nil {
		pipes = []logsql.Pipe{logsql.Fields(fs)}
	}
	index := map[string]*rangeSeries{}
	err := ev.queryTimes(ctx, lq, times, pipes, ev.seriesRow(m, logrow.NewStreamCache(lq.Foreign), index))
	if err != nil {
		return nil, err
	}
	return sortedSeries(index, sortSeries), nil
}

// queryTimes asks the log query's rows with pipes, one query per time
// filter, handing each answer row to row.
func (ev *evaluator) queryTimes(ctx context.Context, lq *plan.LogQuery, times []logsql.Filter, pipes []logsql.Pipe, row func(*backend.Row) error) error {
	for _, tf := range times {
		q := logsql.Query{Filter: logsql.And{tf, lq.Pushdown}, Pipes: pipes}
		if err := ev.c.Query(ctx, ev.t, backend.QueryRequest{Query: q.String()}, row); err != nil {
			return err
		}
	}
	return nil
}

// seriesOf is the series of index labelled labels, added (and counted
// against the memory budget) when new.
func (ev *evaluator) seriesOf(index map[string]*rangeSeries, labels lokidata.Labels) (*rangeSeries, error) {
	key := labels.String()
	if s, ok := index[key]; ok {
		return s, nil
	}
	if err := ev.mem.take(labelsBytes(labels) + int64(len(key))); err != nil {
		return nil, err
	}
	s := &rangeSeries{labels: labels}
	index[key] = s
	return s, nil
}

// sortedSeries lists the series of index, each ordered by order.
func sortedSeries(index map[string]*rangeSeries, order func(*rangeSeries)) []*rangeSeries {
	out := make([]*rangeSeries, 0, len(index))
	for _, s := range index {
		order(s)
		out = append(out, s)
	}
	return out
}

// seriesRow adds a row's sample to its series in index.
func (ev *evaluator) seriesRow(m *plan.RangeAgg, streams *logrow.StreamCache, index map[string]*rangeSeries) func(*backend.Row) error {
	lq := m.Log
	groups, without, noLabels := m.ExtractGrouping(m.Grouping)
	return func(r *backend.Row) error {
		row, err := logrow.Read(r, streams)
		if err != nil {
			return err
		}
		st := stages.Entry{Row: &row, Hints: m.Hints, Early: m.EarlyFilters()}
		if !stages.Run(lq, &st) {
			return nil
		}
		v := float64(len(st.Line))
		if m.Unwrap != nil {
			var ok bool
			if v, ok = st.UnwrapSample(m.Unwrap); !ok {
				return nil
			}
		}
		labels := st.GroupedLabels(st.FullLabelsIfUsed(groups, without, noLabels), groups, without, noLabels)
		s, err := ev.seriesOf(index, labels)
		if err != nil {
			return err
		}
		if err := ev.mem.take(sampleBytes); err != nil {
			return err
		}
		s.ts = append(s.ts, row.TimestampNs)
		s.vals = append(s.vals, v)
		s.streams = append(s.streams, row.Hash)
		s.seqs = append(s.seqs, row.Seq)
		return nil
	}
}

func sortSeries(s *rangeSeries) {
	idx := make([]int, len(s.ts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ia, ib := idx[a], idx[b]
		if s.ts[ia] != s.ts[ib] {
			return s.ts[ia] < s.ts[ib]
		}
		if s.streams[ia] != s.streams[ib] {
			return s.streams[ia] < s.streams[ib]
		}
		return s.seqs[ia] < s.seqs[ib]
	})
	ts, vs := make([]int64, len(idx)), make([]float64, len(idx))
	for i, j := range idx {
		ts[i], vs[i] = s.ts[j], s.vals[j]
	}
	s.ts, s.vals, s.streams, s.seqs = ts, vs, nil, nil
}
