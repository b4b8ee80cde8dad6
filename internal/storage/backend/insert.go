package backend

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"

	"github.com/grafana/loki/pkg/push"
	"github.com/klauspost/compress/s2"

	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// PushStream is one stream of a push as VictoriaLogs' Loki endpoint takes
// it: its labels become stream fields, its entries rows.
type PushStream struct {
	Labels  lokidata.Labels
	Entries []push.Entry
}

// DirectInserter stores pushes without HTTP: the embedded engine, as its
// Loki endpoint would with message parsing off.
type DirectInserter interface {
	InsertLoki(ctx context.Context, t tenant.ID, streams []PushStream) error
}

// PushLoki writes the streams to VictoriaLogs' Loki endpoint with message
// parsing off, so every line is stored verbatim in _msg and labels become
// stream fields. It returns only after VictoriaLogs accepted every row.
// The embedded engine takes the rows directly; a VictoriaLogs over the
// network gets Loki's protobuf, snappy-compressed as Loki's protocol has
// it, in s2's fast snappy-compatible form.
func (c *Client) PushLoki(ctx context.Context, t tenant.ID, streams []PushStream) error {
	if d, ok := c.direct.(DirectInserter); ok {
		return c.timed("push", func() error {
			metrics.CountBackendRequest(ctx)
			return d.InsertLoki(ctx, t, streams)
		})
	}
	req := push.PushRequest{Streams: make([]push.Stream, len(streams))}
	for i, s := range streams {
		req.Streams[i] = push.Stream{Labels: s.Labels.String(), Entries: s.Entries}
	}
	proto, err := req.Marshal()
	if err != nil {
		return err
	}
	form := url.Values{"disable_message_parsing": {"1"}}
	hdr := http.Header{"Content-Type": {"application/x-protobuf"}, "Content-Encoding": {"snappy"}}
	body := s2.EncodeSnappy(nil, proto)
	return c.timed("push", func() error {
		return c.insert(ctx, t, "/insert/loki/api/v1/push", form, body, hdr)
	})
}

// insert posts a body to an insert endpoint and waits for its answer.
func (c *Client) insert(ctx context.Context, t tenant.ID, path string, form url.Values, body []byte, hdr http.Header) error {
	resp, err := c.do(ctx, t, http.MethodPost, path, form, bytes.NewReader(body), hdr)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// Flush makes recently ingested rows searchable at once. Only a single-node
// VictoriaLogs (or the embedded engine) supports it.
func (c *Client) Flush(ctx context.Context) error {
	resp, err := c.do(ctx, tenant.ID{}, http.MethodGet, "/internal/force_flush", nil, nil, nil)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// InsertJSONLines stores newline-delimited JSON rows the way other agents
// write to VictoriaLogs (its /insert/jsonline), with the given stream
// fields and _msg field.
func (c *Client) InsertJSONLines(ctx context.Context, t tenant.ID, body []byte, streamFields, msgField string) error {
	form := url.Values{"_stream_fields": {streamFields}, "_msg_field": {msgField}, "_time_field": {"_time"}}
	return c.timed("insert", func() error {
		return c.insert(ctx, t, "/insert/jsonline", form, body, nil)
	})
}
