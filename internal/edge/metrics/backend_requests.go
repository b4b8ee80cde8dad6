package metrics

import (
	"context"
	"sync/atomic"
)

type backendRequestsKey struct{}

// WithBackendRequestCounter returns a context whose VictoriaLogs requests
// are counted in the returned counter (CountBackendRequest): how many one
// Loki request costs, for RequestObserver and the request's log line.
func WithBackendRequestCounter(ctx context.Context) (context.Context, *atomic.Int64) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, backendRequestsKey{}, n), n
}

// CountBackendRequest counts one VictoriaLogs request made for ctx.
func CountBackendRequest(ctx context.Context) {
	if n, ok := ctx.Value(backendRequestsKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}
