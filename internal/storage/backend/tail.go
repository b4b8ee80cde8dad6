package backend

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
)

// TailRequest is a live tail of a LogsQL filter.
type TailRequest struct {
	Query string
	// Delay holds rows back this long so late arrivals are delivered in
	// order (VictoriaLogs' offset; its default is one second).
	Delay time.Duration
}

// Tail streams the rows VictoriaLogs' live tail delivers (rows with
// timestamps from shortly before the call on) to fn until ctx ends or fn
// returns an error. The rows carry _stream_id, which the tail needs.
func (c *Client) Tail(ctx context.Context, t tenant.ID, q TailRequest, fn func(*Row) error) error {
	form := url.Values{"query": {q.Query}, "start_offset": {"5s"}}
	if q.Delay > time.Second {
		form.Set("offset", strconv.FormatInt(q.Delay.Milliseconds(), 10)+"ms")
	}
	resp, err := c.send(ctx, c.streaming, t, http.MethodPost, "/select/logsql/tail", form, nil, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	err = decodeRows(resp.Body, fn)
	if errors.Is(err, errStop) || ctx.Err() != nil {
		return nil
	}
	return err
}
