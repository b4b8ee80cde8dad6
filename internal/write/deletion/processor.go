package deletion

import (
	"context"
	"log/slog"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/storage/backend"
)

// Processor deletes from storage the rows of requests past their cancel
// period (filter-and-delete mode), as Loki's compactor does: one
// VictoriaLogs delete task a request, the request processed once the task
// is no longer active. Until then, and after, the request's lines stay
// hidden at query time.
type Processor struct {
	Store   *Store
	Backend *backend.Client
	// Delay is how long after its creation a request is processed: Loki's
	// cancel period plus the minute its compactor adds.
	Delay time.Duration
	// Processed is told of a tenant whose stored rows changed: answers
	// that were not filtered at query time (labels, series, volumes) and
	// what caches them must be worked out again.
	Processed func(tenant.ID)
	Log       *slog.Logger
	Now       func() time.Time
}

// Run processes due requests every interval until ctx ends.
func (p *Processor) Run(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		p.Step(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Step starts a task for every due request without one and marks
// processed those whose task has ended.
func (p *Processor) Step(ctx context.Context) {
	due := p.Store.Pending(p.Delay, p.Now())
	if len(due) == 0 {
		return
	}
	active, err := p.Backend.ActiveDeleteTasks(ctx)
	if err != nil {
		p.Log.Warn("delete requests: listing VictoriaLogs delete tasks failed", "err", err)
		return
	}
	for _, d := range due {
		if err := p.advance(ctx, d, active); err != nil {
			p.Log.Warn("delete request not processed yet", "id", d.Request.ID, "err", err)
		}
	}
}

func (p *Processor) advance(ctx context.Context, d Pending, active map[string]bool) error {
	r := d.Request
	if r.Task == "" {
		filter, err := storageFilter(r)
		if err != nil {
			return err
		}
		task, err := p.Backend.RunDeleteTask(ctx, d.Tenant, filter)
		if err != nil {
			return err
		}
		return p.Store.Update(d.Tenant, r.ID, func(r *Request) { r.Task = task })
	}
	if active[r.Task] {
		return nil
	}
	if err := p.Store.Update(d.Tenant, r.ID, func(r *Request) { r.Status = StatusProcessed }); err != nil {
		return err
	}
	if p.Processed != nil {
		p.Processed(d.Tenant)
	}
	return nil
}

// storageFilter is the request's filter as VictoriaLogs' delete task takes
// it.
func storageFilter(r Request) (string, error) {
	sel, err := logql.ParseLogSelector(r.Query, true)
	if err != nil {
		return "", err
	}
	f, err := Filter(sel, r.StartMs, r.EndMs)
	if err != nil {
		return "", err
	}
	return logsql.Query{Filter: f}.String(), nil
}
