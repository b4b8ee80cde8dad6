package frontend

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/metric"
)

// ReadState is what the frontend read for a request before it waited for
// the tenant's pushes to be searchable: the tenant's cache generation (a
// push of old entries moves it on) and, when vloki is the only writer, its
// last acknowledged push number. Steps computed for the request are kept
// under them; without them (OK false) nothing is kept.
type ReadState struct {
	Generation   uint64
	GenerationOK bool
	AckSeq       uint64
	AckSeqOK     bool
}

// StepStore keeps range queries' evaluated steps by key, bounded by bytes
// (ExtentStore).
type StepStore interface {
	Get(key string) (*Extent, bool)
	Set(key string, x *Extent)
}

// Extent is a query's kept steps and, when vloki is the only writer, the
// tenant's acknowledged-push number they were computed after.
type Extent struct {
	Steps  *metric.Steps
	AckSeq uint64
	// size is Bytes once counted (NewExtent): the store asks it twice
	// for every extent kept, and counting walks every sample.
	size int64
}

// NewExtent is steps kept after push number seq, their size counted.
func NewExtent(steps *metric.Steps, seq uint64) *Extent {
	return &Extent{Steps: steps, AckSeq: seq, size: steps.Bytes() + 16}
}

// Bytes is what the extent holds.
func (x *Extent) Bytes() int64 {
	if x.size > 0 {
		return x.size
	}
	return x.Steps.Bytes() + 16
}

// AckLog tells the oldest entry timestamp pushed after a push number: the
// ledger of acknowledged pushes (acks.Ledger).
type AckLog interface {
	OldestSince(t tenant.ID, seq uint64) (oldest int64, ok bool)
}

// Extents makes range metric queries reuse the steps earlier requests of
// the same query and step evaluated, when no data can still arrive for
// them: a refreshed dashboard panel evaluates only its new steps.
type Extents struct {
	Store StepStore
	// Freshness: steps later than now minus this are never kept (Loki's
	// max_cache_freshness_per_query).
	Freshness time.Duration
	Now       func() time.Time
	// Acks, when set (vloki the only writer), replaces the freshness
	// window: steps are kept up to now, and each push drops the kept steps
	// at or after its oldest entry (a step's window ends at its time).
	Acks AckLog

	reused, evaluated atomic.Uint64
}

// Counts reports the steps served from extents and those evaluated.
func (x *Extents) Counts() (reused, evaluated uint64) { return x.reused.Load(), x.evaluated.Load() }

// answer answers a range query from the kept steps from its start on
// and evaluates the steps after them; the series-limit checks count the
// kept steps' series (metric.EvalSteps), and the answer is assembled from
// all steps as a cold one is. The steps are kept under the query's text
// and what the frontend read for the request (st): without a generation
// nothing is reused or kept.
func (x *Extents) answer(ctx context.Context, t tenant.ID, text string, st ReadState, run *engine.MetricRun) (*metric.Result, error) {
	req := run.Request()
	if !st.GenerationOK {
		return run.Run(ctx)
	}
	key := extentKey(t, st.Generation, req.Step, text)
	kept := x.valid(t, key)
	all := keptFrom(kept, req)
	x.reused.Add(uint64(all.Len()))
	if next := req.Start + int64(all.Len())*req.Step; next <= req.End {
		got, err := run.Steps(ctx, next, all)
		if err != nil {
			return nil, err
		}
		x.evaluated.Add(uint64(got.Len()))
		all = metric.JoinSteps(all, got)
	} else if err := metric.CheckKept(req, all); err != nil {
		return nil, err
	}
	res, err := metric.AssembleMatrix(req, all)
	if err != nil {
		return nil, err
	}
	x.keep(st, key, kept, all, req)
	return res, nil
}

// valid is the steps kept under key that no later push can have changed:
// with the push log, those before the oldest entry pushed since they were
// computed; without it, all (only steps older than the freshness window
// were kept, and a push of older entries moves the generation on).
func (x *Extents) valid(t tenant.ID, key string) *metric.Steps {
	kept, ok := x.Store.Get(key)
	if !ok {
		return nil
	}
	if x.Acks == nil {
		return kept.Steps
	}
	oldest, ok := x.Acks.OldestSince(t, kept.AckSeq)
	if !ok || kept.Steps.Len() == 0 || oldest <= kept.Steps.First() {
		return nil
	}
	return kept.Steps.Slice(kept.Steps.First(), oldest-1)
}

// keptFrom is the kept steps from the request's start to its end, empty
// unless the extent holds the start on the request's step grid.
func keptFrom(kept *metric.Steps, req metric.Request) *metric.Steps {
	if kept == nil || kept.Len() == 0 || kept.First() > req.Start || kept.Last() < req.Start || (req.Start-kept.First())%req.Step != 0 {
		return &metric.Steps{}
	}
	return kept.Slice(req.Start, req.End)
}

// keep stores the request's frozen steps, after the kept steps before
// them when the two join, at most two request spans long.
func (x *Extents) keep(st ReadState, key string, kept, all *metric.Steps, req metric.Request) {
	if all.SplitBound() {
		return
	}
	frozen := x.Now().Add(-x.Freshness).UnixNano()
	var seq uint64
	if x.Acks != nil {
		if !st.AckSeqOK {
			return
		}
		seq = st.AckSeq
		frozen = x.Now().UnixNano()
	}
	keep := all.Slice(req.Start, frozen)
	if keep.Len() == 0 {
		return
	}
	if kept != nil && kept.Len() > 0 && kept.First() < req.Start && kept.Last() >= req.Start-req.Step && (req.Start-kept.First())%req.Step == 0 {
		from := max(kept.First(), req.Start-(req.End-req.Start))
		keep = metric.JoinSteps(kept.Slice(from, req.Start-req.Step), keep)
	}
	if kept != nil && kept.Len() > 0 && keep.First() == kept.First() && keep.Last() <= kept.Last() && x.Acks == nil {
		return // nothing new
	}
	x.Store.Set(key, NewExtent(keep, seq))
}

func extentKey(t tenant.ID, gen uint64, step int64, query string) string {
	return strconv.FormatUint(uint64(t.AccountID), 10) + ":" + strconv.FormatUint(uint64(t.ProjectID), 10) +
		"|" + strconv.FormatUint(gen, 10) + "|" + strconv.FormatInt(step, 10) + "|" + query
}
