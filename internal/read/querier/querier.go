// Package querier answers Loki's read endpoints other than LogQL queries,
// as Loki's querier does: label names and values, series, index stats,
// volumes, detected labels and fields, patterns. Each read runs under the
// engine's query timeout with its errors; the stream index and the live
// patterns answer when they know the answer exactly, VictoriaLogs
// otherwise. Live tails are package live/tail.
package querier

import (
	"context"
	"runtime"
	"time"

	"github.com/vloki/vloki/internal/acked/patterns"
	"github.com/vloki/vloki/internal/acked/streamindex"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/frontend"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// Config is what a Querier reads from.
type Config struct {
	// Engine gives the query timeout and the names of data other agents
	// wrote; Frontend runs the log queries detected fields and patterns
	// read, as a query_range.
	Engine   *engine.Engine
	Frontend *frontend.Frontend
	Storage  *backend.Client
	// Streams answers from memory when it knows the answer exactly (nil:
	// always VictoriaLogs).
	Streams  *streamindex.Index
	Patterns Patterns
	Metrics  *metrics.Metrics
}

// Patterns configures /loki/api/v1/patterns.
type Patterns struct {
	Enabled  bool
	MaxLines int
	// Live mines pushes as they are acknowledged (vloki the sole writer);
	// it answers when it saw every row of the retained window.
	Live *patterns.Live[tenant.ID]
}

// Querier answers the read endpoints.
type Querier struct {
	engine   *engine.Engine
	frontend *frontend.Frontend
	storage  *backend.Client
	streams  *streamindex.Index
	patterns Patterns
	metrics  *metrics.Metrics
	detected *detectMemo
	// mining admits one patterns request mined from storage per CPU:
	// each holds its three hours of lines while it clusters them, and
	// more at once add memory, not speed.
	mining chan struct{}
}

// New returns a Querier; a nil Metrics gets a fresh set.
func New(c Config) *Querier {
	if c.Metrics == nil {
		c.Metrics = metrics.New()
	}
	return &Querier{engine: c.Engine, frontend: c.Frontend, storage: c.Storage, streams: c.Streams, patterns: c.Patterns, metrics: c.Metrics,
		detected: newDetectMemo(), mining: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// bounded runs read under the engine's query timeout (Loki's querier
// bounds its label, series, stats, volume and detected-labels reads so).
func bounded[T any](ctx context.Context, e *engine.Engine, t tenant.ID, read func(context.Context) (T, error)) (T, error) {
	var out T
	err := e.Run(ctx, t, func(ctx context.Context) error {
		var err error
		out, err = read(ctx)
		return err
	})
	return out, err
}

// foreign returns how to read data other agents wrote in [start, end],
// nil when vloki reads only its own rows.
func (q *Querier) foreign(ctx context.Context, t tenant.ID, start, end time.Time) (*otheragents.Config, error) {
	return q.engine.Foreign(ctx, t, start.UnixNano(), end.UnixNano())
}
