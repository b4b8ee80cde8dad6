package backend

import (
	"context"
	"sync/atomic"
)

type counterKey struct{}

// WithRequestCounter returns a context whose VictoriaLogs requests are
// counted in the returned counter: how many one Loki request costs.
func WithRequestCounter(ctx context.Context) (context.Context, *atomic.Int64) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, counterKey{}, n), n
}

func countRequest(ctx context.Context) {
	if n, ok := ctx.Value(counterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}
