package frontend

import (
	"context"
	"net/http"
	"time"

	"golang.org/x/sync/singleflight"
)

// flights are the executions in flight, by request key.
type flights = singleflight.Group

// execute runs h once for all identical requests in flight (when
// coalescing), detached from any one client, so one leaving does not
// cancel the others' answer. A request does not join an execution that
// started before its tenant's last acknowledged push.
func (f *Frontend) execute(ctx context.Context, req *Request, h func(http.ResponseWriter, context.Context)) *answer {
	run := func(ctx context.Context) *answer {
		rec := newRecorder()
		h(rec, ctx)
		return rec.answer()
	}
	if !f.cfg.Coalesce {
		return run(ctx)
	}
	key := req.key(f.generations.get(tenantKey(req.Tenant)))
	for {
		me := &flightResult{started: f.now()}
		ch := f.flight.DoChan(key, func() (any, error) {
			me.a = run(context.WithoutCancel(ctx))
			return me, nil
		})
		select {
		case res := <-ch:
			fr := res.Val.(*flightResult)
			if fr == me {
				return fr.a
			}
			if f.ackedSince(req.Tenant, fr.started) {
				continue // that execution may predate a push this request must see
			}
			f.stats.coalesced.Add(1)
			return fr.a
		case <-ctx.Done():
			return &answer{status: 499, body: []byte(ctx.Err().Error())}
		}
	}
}

type flightResult struct {
	a       *answer
	started time.Time
}
