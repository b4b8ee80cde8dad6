package embedded

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/VictoriaMetrics/VictoriaLogs/app/vlstorage"
	"github.com/VictoriaMetrics/VictoriaLogs/lib/logstorage"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/storage/backend"
)

// RunQuery runs a LogsQL query on the in-process storage and hands every
// result row to fn, as /select/logsql/query would, without writing and
// reading JSON: a row's fields are its non-empty columns, in the handler's
// order, and a row with none is skipped, as VictoriaLogs' JSON writer
// skips it.
// Requests with a limit argument go through HTTP instead
// (backend.ErrNotDirect).
func (e *Engine) RunQuery(ctx context.Context, t tenant.ID, req backend.QueryRequest, fn func(*backend.Row) error) error {
	if req.Limit != 0 {
		return backend.ErrNotDirect
	}
	// The HTTP handler evaluates relative times one nanosecond before now.
	q, err := logstorage.ParseQueryAtTimestamp(req.Query, time.Now().UnixNano()-1)
	if err != nil {
		return &backend.Error{Endpoint: "/select/logsql/query", Status: 400, Body: fmt.Sprintf("cannot parse query [%s]: %s", req.Query, err)}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	outer := ctx
	ctx, done, err := e.gate.enter(ctx)
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &rowWriter{fn: fn, cancel: cancel, sortFields: !q.IsFixedOutputFieldsOrder()}
	tenants := []logstorage.TenantID{{AccountID: t.AccountID, ProjectID: t.ProjectID}}
	err = vlstorage.RunQuery(queryContext(ctx, tenants, q), w.writeBlock)
	if w.err != nil {
		return w.err
	}
	if cerr := outer.Err(); cerr != nil {
		return cerr // the caller gave up or ran out of time
	}
	if ctx.Err() != nil {
		return errStopped // VictoriaLogs may end a cancelled query quietly, with rows missing
	}
	if err != nil {
		return &backend.Error{Endpoint: "/select/logsql/query", Status: 400, Body: fmt.Sprintf("cannot execute query [%s]: %s", q, err)}
	}
	return err
}

// rowWriter feeds blocks' rows to fn one at a time: VictoriaLogs' workers
// call writeBlock concurrently.
type rowWriter struct {
	fn     func(*backend.Row) error
	cancel func()
	// sortFields orders a row's fields by name, as the HTTP handler does
	// since VictoriaLogs v1.46 unless the query fixes their order.
	sortFields bool

	mu  sync.Mutex
	row backend.Row
	err error
}

func (w *rowWriter) writeBlock(_ uint, db *logstorage.DataBlock) {
	n := db.RowsCount()
	if n == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	cols := db.GetColumns(w.sortFields)
	for i := 0; i < n && w.err == nil; i++ {
		w.row.Fields = w.row.Fields[:0]
		for c := range cols {
			col := &cols[c]
			if v := col.Values[i]; v != "" {
				w.row.Fields = append(w.row.Fields, backend.Field{Name: bytesOf(col.Name), Value: bytesOf(v)})
			}
		}
		if len(w.row.Fields) == 0 {
			continue
		}
		if err := w.fn(&w.row); err != nil {
			w.err = err
			w.cancel()
		}
	}
}

// bytesOf views s as bytes without copying: row values are only valid
// during fn, and fn copies what it keeps (backend.Field's contract).
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
