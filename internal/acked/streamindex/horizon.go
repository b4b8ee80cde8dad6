package streamindex

import (
	"context"
	"math"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/storage/backend"
)

// horizonWindows are the look-backs tried in turn: the newest row lies in
// the first window that holds any, so a tenant writing today costs a
// query over a day, not over its whole history.
var horizonWindows = []time.Duration{24 * time.Hour, 31 * 24 * time.Hour, 0}

// StorageHorizon reads a tenant's newest row from VictoriaLogs.
func StorageHorizon(c *backend.Client, now func() time.Time) HorizonFunc {
	return func(ctx context.Context, t tenant.ID) (int64, bool, error) {
		// Timestamps may lie ahead of now (VictoriaLogs keeps up to two
		// days of future rows by default): look a year ahead.
		hi := now().Add(365 * 24 * time.Hour).UnixNano()
		for _, w := range horizonWindows {
			lo := int64(math.MinInt64 / 2)
			if w > 0 {
				lo = now().Add(-w).UnixNano()
			}
			ns, ok, err := newest(ctx, c, t, lo, hi)
			if err != nil || ok {
				return ns, ok, err
			}
		}
		return 0, false, nil
	}
}

func newest(ctx context.Context, c *backend.Client, t tenant.ID, lo, hi int64) (ns int64, ok bool, err error) {
	q := logsql.Query{Filter: logsql.TimeRange{Start: max(lo, 0), End: hi}, Pipes: []logsql.Pipe{logsql.Fields{"_time"}, logsql.TimeEdge{}}}
	err = c.Query(ctx, t, backend.QueryRequest{Query: q.String()}, func(r *backend.Row) error {
		n, err := strconv.ParseInt(string(r.Get("n")), 10, 64)
		if err != nil || n == 0 {
			return err
		}
		at, err := time.Parse(time.RFC3339Nano, string(r.Get("t")))
		ns, ok = at.UnixNano(), err == nil
		return err
	})
	return ns, ok, err
}
