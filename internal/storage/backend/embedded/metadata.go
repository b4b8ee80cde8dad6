package embedded

import (
	"context"
	"fmt"
	"time"

	"github.com/VictoriaMetrics/VictoriaLogs/app/vlstorage"
	"github.com/VictoriaMetrics/VictoriaLogs/lib/logstorage"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
)

// Values answers the metadata endpoints (field and stream-field names and
// values, streams) from the in-process storage, as their HTTP handlers
// would: the query evaluated at now, pipes dropped.
func (e *Engine) Values(ctx context.Context, t tenant.ID, endpoint string, m backend.MetadataRequest) ([]backend.ValueHits, error) {
	get, ok := metadataCalls[endpoint]
	if !ok {
		return nil, backend.ErrNotDirect
	}
	q, err := metadataQuery(m)
	if err != nil {
		return nil, &backend.Error{Endpoint: endpoint, Status: 400, Body: err.Error()}
	}
	tenants := []logstorage.TenantID{{AccountID: t.AccountID, ProjectID: t.ProjectID}}
	gctx, done, err := e.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	vs, err := get(gctx, tenants, q, m)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		if gctx.Err() != nil {
			return nil, errStopped
		}
		return nil, &backend.Error{Endpoint: endpoint, Status: 400, Body: err.Error()}
	}
	out := make([]backend.ValueHits, len(vs))
	for i, v := range vs {
		out[i] = backend.ValueHits{Value: v.Value, Hits: v.Hits}
	}
	return out, nil
}

type metadataCall func(context.Context, []logstorage.TenantID, *logstorage.Query, backend.MetadataRequest) ([]logstorage.ValueWithHits, error)

// queryContext is what VictoriaLogs' storage calls take since v1.25: the
// query with its tenants, no partial answers, no hidden fields.
func queryContext(ctx context.Context, ts []logstorage.TenantID, q *logstorage.Query) *logstorage.QueryContext {
	return logstorage.NewQueryContext(ctx, &logstorage.QueryStats{}, ts, q, false, nil)
}

var metadataCalls = map[string]metadataCall{
	backend.FieldNames: func(ctx context.Context, ts []logstorage.TenantID, q *logstorage.Query, _ backend.MetadataRequest) ([]logstorage.ValueWithHits, error) {
		return vlstorage.GetFieldNames(queryContext(ctx, ts, q), "")
	},
	backend.FieldValues: func(ctx context.Context, ts []logstorage.TenantID, q *logstorage.Query, m backend.MetadataRequest) ([]logstorage.ValueWithHits, error) {
		return vlstorage.GetFieldValues(queryContext(ctx, ts, q), m.Field, "", uint64(max(m.Limit, 0)))
	},
	backend.StreamFieldNames: func(ctx context.Context, ts []logstorage.TenantID, q *logstorage.Query, _ backend.MetadataRequest) ([]logstorage.ValueWithHits, error) {
		return vlstorage.GetStreamFieldNames(queryContext(ctx, ts, q), "")
	},
	backend.StreamFieldValues: func(ctx context.Context, ts []logstorage.TenantID, q *logstorage.Query, m backend.MetadataRequest) ([]logstorage.ValueWithHits, error) {
		return vlstorage.GetStreamFieldValues(queryContext(ctx, ts, q), m.Field, "", uint64(max(m.Limit, 0)))
	},
	backend.Streams: func(ctx context.Context, ts []logstorage.TenantID, q *logstorage.Query, m backend.MetadataRequest) ([]logstorage.ValueWithHits, error) {
		return vlstorage.GetStreams(queryContext(ctx, ts, q), uint64(max(m.Limit, 0)))
	},
}

// metadataQuery builds the query the HTTP handlers build from the form
// the client sends (its time bounds in the query text).
func metadataQuery(m backend.MetadataRequest) (*logstorage.Query, error) {
	text := m.LogsQL()
	q, err := logstorage.ParseQueryAtTimestamp(text, time.Now().UnixNano())
	if err != nil {
		return nil, fmt.Errorf("cannot parse query [%s]: %w", text, err)
	}
	q.DropAllPipes()
	return q, nil
}
