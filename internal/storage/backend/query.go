package backend

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/valyala/fastjson"

	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
)

// Field is one field of a VictoriaLogs row. Values are only valid during the
// callback that receives them: copy what you keep.
type Field struct {
	Name  []byte
	Value []byte
}

// Row is one log entry as VictoriaLogs returns it.
type Row struct {
	Fields []Field
}

// Get returns the value of the named field, or nil.
func (r *Row) Get(name string) []byte {
	for i := range r.Fields {
		if string(r.Fields[i].Name) == name {
			return r.Fields[i].Value
		}
	}
	return nil
}

// QueryRequest is one LogsQL query. Time bounds belong in its filter
// (logsql.TimeRange): VictoriaLogs' `end` argument is inclusive up to v1.24
// and exclusive in later releases, a `_time:[start, end]` filter the same
// in all.
type QueryRequest struct {
	// Query is the LogsQL text.
	Query string
	// Limit, when > 0, asks VictoriaLogs for its Limit most recent rows.
	Limit int
}

func (q QueryRequest) form() url.Values {
	f := url.Values{"query": {q.Query}}
	if q.Limit > 0 {
		f.Set("limit", strconv.Itoa(q.Limit))
	}
	return f
}

// FormatNs writes a bound as the client sends it to VictoriaLogs.
func FormatNs(ns int64) string { return formatNs(ns) }

func formatNs(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

// DirectQuerier runs queries without HTTP: the embedded engine.
type DirectQuerier interface {
	// RunQuery answers as /select/logsql/query would, or ErrNotDirect
	// for requests it leaves to HTTP.
	RunQuery(ctx context.Context, t tenant.ID, q QueryRequest, fn func(*Row) error) error
}

// DirectMetadata answers the metadata endpoints without HTTP.
type DirectMetadata interface {
	Values(ctx context.Context, t tenant.ID, endpoint string, m MetadataRequest) ([]ValueHits, error)
}

// ErrNotDirect sends a query through HTTP after all.
var ErrNotDirect = errors.New("not a direct query")

// errStop ends a query early without an error.
var errStop = errors.New("stop")

// Stop is returned by a row callback to end the query early.
func Stop() error { return errStop }

// Query runs a LogsQL query and calls fn for every row as it streams in.
func (c *Client) Query(ctx context.Context, t tenant.ID, q QueryRequest, fn func(*Row) error) error {
	return c.timed("query", func() error {
		if c.direct != nil {
			metrics.CountBackendRequest(ctx)
			err := c.direct.RunQuery(ctx, t, q, fn)
			if !errors.Is(err, ErrNotDirect) {
				if errors.Is(err, errStop) {
					return nil
				}
				return err
			}
		}
		resp, err := c.do(ctx, t, http.MethodPost, "/select/logsql/query", q.form(), nil, nil)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		err = decodeRows(resp.Body, fn)
		if errors.Is(err, errStop) {
			return nil
		}
		return err
	})
}

// decodeRows reads NDJSON rows without reflection, reusing buffers.
func decodeRows(r io.Reader, fn func(*Row) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var p fastjson.Parser
	var row Row
	var line, scratch []byte
	for {
		var eof bool
		var err error
		line, eof, err = readLine(br, line[:0])
		if err != nil {
			return fmt.Errorf("reading VictoriaLogs rows: %w", err)
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			var ok bool
			if scratch, ok = scanRow(trimmed, &row, scratch[:0]); !ok {
				if err := decodeRow(&p, trimmed, &row); err != nil {
					return err
				}
			}
			if err := fn(&row); err != nil {
				return err
			}
		}
		if eof {
			return nil
		}
	}
}

// readLine appends one whole line, however long, to dst.
func readLine(br *bufio.Reader, dst []byte) ([]byte, bool, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		dst = append(dst, chunk...)
		switch {
		case err == nil:
			return dst, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			return dst, true, nil
		default:
			return dst, false, err
		}
	}
}

func decodeRow(p *fastjson.Parser, line []byte, row *Row) error {
	v, err := p.ParseBytes(line)
	if err != nil {
		return fmt.Errorf("decoding VictoriaLogs row: %w", err)
	}
	obj, err := v.Object()
	if err != nil {
		return fmt.Errorf("decoding VictoriaLogs row: %w", err)
	}
	row.Fields = row.Fields[:0]
	obj.Visit(func(k []byte, v *fastjson.Value) {
		row.Fields = append(row.Fields, Field{Name: k, Value: v.GetStringBytes()})
	})
	return nil
}

// Clone copies a row so it outlives the callback that received it.
func (r *Row) Clone() *Row {
	n := 0
	for _, f := range r.Fields {
		n += len(f.Name) + len(f.Value)
	}
	buf := make([]byte, 0, n)
	out := &Row{Fields: make([]Field, len(r.Fields))}
	for i, f := range r.Fields {
		buf = append(buf, f.Name...)
		name := buf[len(buf)-len(f.Name):]
		buf = append(buf, f.Value...)
		out.Fields[i] = Field{Name: name, Value: buf[len(buf)-len(f.Value):]}
	}
	return out
}
