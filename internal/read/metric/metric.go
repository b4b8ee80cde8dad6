// Package metric evaluates LogQL metric queries as Loki's querier does:
// range aggregations over the rows of their log query or over VictoriaLogs'
// stats buckets (reading only the step windows when they leave gaps),
// vector aggregations, binary and set operators, label_replace, all under
// the query's memory budget; and the steps the frontend keeps, joins and
// assembles into a matrix (Steps).
//
// How each LogQL operator is evaluated (a range aggregation's window
// function, a vector aggregation's fold and result, a set operator) is
// one row per operator in ops.go, keyed by logql's typed operators.
package metric

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
)

// Request is a metric query over steps Start, Start+Step, ..., End
// (Unix ns); Step 0 is an instant query at Start.
type Request struct {
	Query      plan.Metric
	Start, End int64
	Step       int64
	MaxSeries  int
	// MaxBufferedBytes bounds what the query holds while reading rows
	// (0: unlimited); see budget.
	MaxBufferedBytes int64
	// SortByValue keeps an instant vector in evaluation order (the query
	// uses sort or sort_desc), as Loki does.
	SortByValue bool
	// Splits are the frontend's sub-queries of a range query, in time
	// order; its queriers apply max_query_series to each sub-query's
	// answer, and the frontend reads each answer's steps (jamTwins).
	Splits []SplitRange
	// Frozen, when set, lets range aggregations take samples of frozen
	// data from earlier evaluations and keep theirs (frozen.go).
	Frozen *Frozen
	// Indexed, when set (vloki the only writer), answers counts and byte
	// sums over bare selectors from the stream index (indexed.go).
	Indexed Indexed
}

// SplitRange is one sub-query of Loki's query frontend: the steps from
// Start to End (Unix ns, both included).
type SplitRange struct{ Start, End int64 }

// ResultKind is Loki's resultType.
type ResultKind int

// Result kinds of metric queries.
const (
	Matrix ResultKind = iota
	Vector
	Scalar
)

// Result is the answer to a metric query.
type Result struct {
	Kind   ResultKind
	Series []lokidata.Series // matrix, or vector with one point per series
	Scalar lokidata.Point
}

// LimitError is a query over one of Loki's limits (HTTP 400).
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// Status is the HTTP status Loki answers with.
func (e *LimitError) Status() int { return http.StatusBadRequest }

// sample is one series' value at one step.
type sample struct {
	labels lokidata.Labels
	v      float64
}

// value is a node's result at every step: scalars or vectors.
type value struct {
	scalar  bool
	scalars []float64
	vectors [][]sample
}

// evaluator evaluates plan nodes over the request's steps.
type evaluator struct {
	c     *backend.Client
	t     tenant.ID
	req   Request
	steps []int64 // ns
	mem   budget
	// prior holds the request's steps before these, kept from earlier
	// requests; logs records the querier answers' series (in the order
	// the answers are met) for the next request to check them again.
	prior   *Steps
	logs    []*seriesLog
	answers int
	// twins: a vector aggregation made groups that print alike (see
	// jamTwins); jammed: a querier answer's series were cut for it, so
	// a step's value depends on the steps before it in its sub-query.
	twins, jammed bool
}

// Run evaluates a metric query.
func Run(ctx context.Context, c *backend.Client, t tenant.ID, req Request) (*Result, error) {
	s, err := EvalSteps(ctx, c, t, req, nil)
	if err != nil {
		return nil, err
	}
	if req.Step == 0 {
		ev := &evaluator{req: req, steps: s.times}
		return ev.instantResult(s.v)
	}
	return AssembleMatrix(req, s)
}

func steps(req Request) []int64 {
	if req.Step <= 0 {
		return []int64{req.Start}
	}
	var out []int64
	for t := req.Start; t <= req.End; t += req.Step {
		out = append(out, t)
	}
	return out
}

func (ev *evaluator) eval(ctx context.Context, m plan.Metric) (value, error) {
	switch m := m.(type) {
	case *plan.Scalar:
		return ev.constant(m.V, true), nil
	case *plan.Vector:
		return ev.constant(m.V, false), nil
	case *plan.RangeAgg:
		return ev.rangeAgg(ctx, m)
	case *plan.VectorAgg:
		return ev.vectorAgg(ctx, m)
	case *plan.BinOp:
		return ev.binOp(ctx, m)
	case *plan.SumOfRange:
		return ev.sumOfRange(ctx, m)
	case *plan.LabelReplace:
		return ev.labelReplace(ctx, m)
	case *plan.QuerierAnswer:
		return ev.querierAnswer(ctx, m)
	}
	return value{}, fmt.Errorf("exec: unexpected metric node %T", m)
}

// querierAnswer evaluates what Loki hands to a querier and reads its
// answer as Loki's frontend does.
func (ev *evaluator) querierAnswer(ctx context.Context, m *plan.QuerierAnswer) (value, error) {
	idx := ev.answers
	ev.answers++
	ev.twins = false
	v, err := ev.eval(ctx, m.Inner)
	if err != nil {
		return v, err
	}
	if err := ev.checkAnswer(idx, v); err != nil {
		return v, err
	}
	if ev.twins && ev.req.Step > 0 && !m.Whole && !v.scalar {
		var cut bool
		v, cut = ev.jamTwins(v)
		ev.jammed = ev.jammed || cut
	}
	ev.twins = false
	return v, nil
}

func (ev *evaluator) constant(v float64, scalar bool) value {
	out := value{scalar: scalar}
	for range ev.steps {
		if scalar {
			out.scalars = append(out.scalars, v)
		} else {
			out.vectors = append(out.vectors, []sample{{labels: lokidata.Labels{}, v: v}})
		}
	}
	return out
}

func ms(ns int64) int64 { return ns / 1e6 }

// matrixResult gathers every series' points, series sorted by labels; a
// scalar becomes one series without labels, as Loki does.
func (ev *evaluator) matrixResult(v value) (*Result, error) {
	if v.scalar {
		s := lokidata.Series{Metric: lokidata.Labels{}}
		for i, t := range ev.steps {
			s.Points = append(s.Points, lokidata.Point{TimestampMs: ms(t), Value: v.scalars[i]})
		}
		return &Result{Kind: Matrix, Series: []lokidata.Series{s}}, nil
	}
	index := seriesIndex{byKey: map[string]int{}, bySlice: map[labelsSlice]int{}}
	var series []lokidata.Series
	// prev and cur: the series of each position of the previous and this
	// step's vector. A series usually keeps its position from step to
	// step, and comparing its labels costs less than finding them (their
	// slices are not always shared).
	var prev, cur []int
	for i, vec := range v.vectors {
		cur = cur[:0]
		for p, s := range vec {
			j, ok := 0, false
			if p < len(prev) && lokidata.Compare(series[prev[p]].Metric, s.labels) == 0 {
				j, ok = prev[p], true
			} else {
				j, ok = index.find(s.labels)
			}
			cur = append(cur, j)
			if !ok {
				if err := ev.checkSeries(len(series) + 1); err != nil {
					return nil, err
				}
				j = len(series)
				index.add(s.labels, j)
				series = append(series, lokidata.Series{Metric: s.labels})
				cur[p] = j
			}
			series[j].Points = append(series[j].Points, lokidata.Point{TimestampMs: ms(ev.steps[i]), Value: s.v})
		}
		prev, cur = cur, prev
	}
	// A querier's order; the frontend merges split answers (mergeMatrix).
	sort.Slice(series, func(i, j int) bool { return lokidata.Compare(series[i].Metric, series[j].Metric) < 0 })
	return &Result{Kind: Matrix, Series: series}, nil
}

// seriesIndex finds a sample's series: by the identity of its labels slice
// first (samples of one series usually share it), then by label string.
type seriesIndex struct {
	byKey   map[string]int
	bySlice map[labelsSlice]int
}

// labelsSlice identifies a labels slice; two samples whose labels share
// it have the same labels.
type labelsSlice struct {
	first *lokidata.Label
	n     int
}

func sliceOf(ls lokidata.Labels) (labelsSlice, bool) {
	if len(ls) == 0 {
		return labelsSlice{}, false
	}
	return labelsSlice{&ls[0], len(ls)}, true
}

func (x seriesIndex) find(ls lokidata.Labels) (int, bool) {
	sl, ok := sliceOf(ls)
	if ok {
		if j, found := x.bySlice[sl]; found {
			return j, true
		}
	}
	j, found := x.byKey[ls.String()]
	if found && ok {
		x.bySlice[sl] = j
	}
	return j, found
}

func (x seriesIndex) add(ls lokidata.Labels, j int) {
	x.byKey[ls.String()] = j
	if sl, ok := sliceOf(ls); ok {
		x.bySlice[sl] = j
	}
}

func (ev *evaluator) instantResult(v value) (*Result, error) {
	ts := ms(ev.steps[0])
	if v.scalar {
		return &Result{Kind: Scalar, Scalar: lokidata.Point{TimestampMs: scalarTimestampMs(ts), Value: v.scalars[0]}}, nil
	}
	vec := v.vectors[0]
	if err := ev.checkSeries(len(vec)); err != nil {
		return nil, err
	}
	if !ev.req.SortByValue {
		sort.SliceStable(vec, func(i, j int) bool { return lokidata.Compare(vec[i].labels, vec[j].labels) < 0 })
	}
	out := &Result{Kind: Vector}
	for _, s := range vec {
		out.Series = append(out.Series, lokidata.Series{Metric: s.labels, Points: []lokidata.Point{{TimestampMs: ts, Value: s.v}}})
	}
	return out, nil
}

func (ev *evaluator) checkSeries(n int) error {
	if ev.req.MaxSeries > 0 && n > ev.req.MaxSeries {
		return &LimitError{Msg: fmt.Sprintf("maximum number of series (%d) reached for a single query; consider reducing query cardinality by adding more specific stream selectors, reducing the time range, or aggregating results with functions like sum(), count() or topk()", ev.req.MaxSeries)}
	}
	return nil
}

// scalarTimestampMs reproduces what Loki v3.7.8's query frontend does to
// an instant scalar's timestamp: it reads the milliseconds as seconds,
// converts them to nanoseconds with int64 wrap-around, divides by 1e6 and
// reads the result as seconds again. Clients see that value, so vloki
// answers it too.
func scalarTimestampMs(ms int64) int64 {
	ns := int64(uint64(ms) * 1e9)
	return (ns / 1e6) * 1000
}
