package engine

import (
	"context"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/exec"
)

// ExtentStore keeps range queries' evaluated steps by key; it bounds
// itself by bytes.
type ExtentStore interface {
	Get(key string) (exec.Extent, bool)
	Set(key string, e exec.Extent)
}

// Extents makes range metric queries reuse the steps earlier requests of
// the same query and step evaluated, when no data can still arrive for
// them: a refreshed dashboard panel computes only its new steps.
type Extents struct {
	Store ExtentStore
	// Freshness: steps later than now minus this are never kept (Loki's
	// max_cache_freshness_per_query).
	Freshness time.Duration
	Now       func() time.Time
	// Generation is the tenant's cache generation as the frontend read it
	// before the request waited for its tenant's pushes to be searchable
	// (a push of old entries moves it on); false: keep nothing.
	Generation func(context.Context) (uint64, bool)

	reused, evaluated atomic.Uint64
}

// Counts reports the steps served from extents and those evaluated.
func (x *Extents) Counts() (reused, evaluated uint64) { return x.reused.Load(), x.evaluated.Load() }

// WithExtents makes the engine keep and reuse range queries' steps.
func (e *Engine) WithExtents(x *Extents) *Engine {
	e.extents = x
	return e
}

// rangeFromExtents answers a range query from kept steps where it can and
// evaluates the rest: whole sub-queries are served from an extent, the
// rest from the first one not fully kept on. The answer is assembled from
// all steps as a cold one is.
func (e *Engine) rangeFromExtents(ctx context.Context, t backend.Tenant, text string, req exec.MetricRequest) (*exec.MetricResult, error) {
	gen, ok := e.extents.Generation(ctx)
	if !ok {
		return exec.RunMetric(ctx, e.c, t, req)
	}
	key := extentKey(t, gen, req.Step, text)
	kept, _ := e.extents.Store.Get(key)
	n := coveredSplits(kept, req.Splits, req.Step)
	all := &exec.Steps{}
	if n > 0 {
		all = kept.Steps.Slice(req.Start, req.Splits[n-1].End)
		e.extents.reused.Add(uint64(all.Len()))
	}
	if n < len(req.Splits) {
		rest := req
		rest.Start, rest.Splits = req.Splits[n].Start, req.Splits[n:]
		got, err := exec.EvalSteps(ctx, e.c, t, rest)
		if err != nil {
			return nil, err
		}
		if all.Len() > 0 {
			// Sub-queries a step of at least the split interval apart
			// share their boundary step.
			got = got.Slice(all.Last()+1, math.MaxInt64)
		}
		e.extents.evaluated.Add(uint64(got.Len()))
		all = exec.JoinSteps(all, got)
	}
	res, err := exec.AssembleMatrix(req, all)
	if err != nil {
		return nil, err
	}
	e.keepExtent(key, kept, all, req)
	return res, nil
}

// coveredSplits is how many of the splits, from the first, the extent
// serves: each split's steps are all kept, on the same step grid, and
// within one sub-query the extent's steps were checked under.
func coveredSplits(x exec.Extent, splits []exec.SplitRange, step int64) int {
	if x.Steps == nil || x.Steps.Len() == 0 {
		return 0
	}
	n := 0
	for _, sp := range splits {
		if sp.Start < x.Steps.First() || sp.End > x.Steps.Last() || (sp.Start-x.Steps.First())%step != 0 || !checkedWithin(x.Checked, sp) {
			break
		}
		n++
	}
	return n
}

func checkedWithin(checked []exec.SplitRange, sp exec.SplitRange) bool {
	for _, c := range checked {
		if c.Start <= sp.Start && sp.End <= c.End {
			return true
		}
	}
	return false
}

// keepExtent stores the request's frozen steps, after the kept steps
// before them when the two join, at most two request spans long.
func (e *Engine) keepExtent(key string, kept exec.Extent, all *exec.Steps, req exec.MetricRequest) {
	frozen := e.extents.Now().Add(-e.extents.Freshness).UnixNano()
	keep := all.Slice(req.Start, frozen)
	if keep.Len() == 0 {
		return
	}
	checked := req.Splits
	if prev := kept.Steps; prev != nil && prev.Len() > 0 && prev.First() < req.Start && prev.Last() >= req.Start-req.Step && (req.Start-prev.First())%req.Step == 0 {
		from := max(prev.First(), req.Start-(req.End-req.Start))
		keep = exec.JoinSteps(prev.Slice(from, req.Start-req.Step), keep)
		checked = append(append([]exec.SplitRange(nil), kept.Checked...), req.Splits...)
	}
	if kept.Steps != nil && kept.Steps.Len() > 0 && keep.First() == kept.Steps.First() && keep.Last() <= kept.Steps.Last() {
		return // nothing new
	}
	e.extents.Store.Set(key, exec.Extent{Steps: keep, Checked: relevant(checked, keep.First(), keep.Last())})
}

// relevant keeps the sub-queries that hold some of [first, last] and lie
// in no other one.
func relevant(splits []exec.SplitRange, first, last int64) []exec.SplitRange {
	var out []exec.SplitRange
	for i, sp := range splits {
		if sp.End < first || sp.Start > last || containedInOther(splits, i) {
			continue
		}
		out = append(out, sp)
	}
	return out
}

// containedInOther reports splits[i] inside another split (of two equal
// ones, the later counts as inside).
func containedInOther(splits []exec.SplitRange, i int) bool {
	sp := splits[i]
	for j, o := range splits {
		if j != i && o.Start <= sp.Start && sp.End <= o.End && (o != sp || j < i) {
			return true
		}
	}
	return false
}

func extentKey(t backend.Tenant, gen uint64, step int64, query string) string {
	return strconv.FormatUint(uint64(t.AccountID), 10) + ":" + strconv.FormatUint(uint64(t.ProjectID), 10) +
		"|" + strconv.FormatUint(gen, 10) + "|" + strconv.FormatInt(step, 10) + "|" + query
}
