package canary

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	"github.com/grafana/loki/pkg/push"
	"github.com/klauspost/compress/snappy"
)

// client speaks Loki's HTTP API: push, query_range, query and tail.
type client struct {
	base   string
	tenant string
	http   *http.Client
	labels string // the stream's labels in push form
}

// statusError is an answer other than the one wanted.
type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string { return fmt.Sprintf("status %d: %s", e.code, e.body) }

// retryable reports whether a push failing with err may succeed again.
func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.code == http.StatusTooManyRequests || se.code >= 500
	}
	return true
}

func (c *client) request(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if c.tenant != "" {
		req.Header.Set("X-Scope-OrgID", c.tenant)
	}
	return req, nil
}

func (c *client) do(req *http.Request, want int) ([]byte, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, &statusError{resp.StatusCode, strings.TrimSpace(string(b))}
	}
	return b, nil
}

// push sends one entry as a snappy-compressed protobuf push, as agents do.
func (c *client) push(ctx context.Context, ts int64, text string) error {
	raw, err := (&push.PushRequest{Streams: []push.Stream{{
		Labels:  c.labels,
		Entries: []push.Entry{{Timestamp: time.Unix(0, ts), Line: text}},
	}}}).Marshal()
	if err != nil {
		return err
	}
	req, err := c.request(ctx, http.MethodPost, "/loki/api/v1/push", snappy.Encode(nil, raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	_, err = c.do(req, http.StatusNoContent)
	return err
}

// queryRange asks for the stream's entries stamped in [start, end],
// oldest first, and returns their lines by timestamp.
func (c *client) queryRange(ctx context.Context, query string, start, end int64, limit int) (map[int64]string, error) {
	out := map[int64]string{}
	for {
		v := url.Values{
			"query": {query}, "start": {strconv.FormatInt(start, 10)}, "end": {strconv.FormatInt(end, 10)},
			"limit": {strconv.Itoa(limit)}, "direction": {"forward"},
		}
		req, err := c.request(ctx, http.MethodGet, "/loki/api/v1/query_range?"+v.Encode(), nil)
		if err != nil {
			return nil, err
		}
		b, err := c.do(req, http.StatusOK)
		if err != nil {
			return nil, err
		}
		var ans struct {
			Status string
			Data   struct {
				ResultType string
				Result     []struct {
					Values [][]string
				}
			}
		}
		if err := json.Unmarshal(b, &ans); err != nil {
			return nil, fmt.Errorf("query_range answer: %w", err)
		}
		if ans.Status != "success" || ans.Data.ResultType != "streams" {
			return nil, fmt.Errorf("query_range answered %s %s", ans.Status, ans.Data.ResultType)
		}
		n, last := 0, start
		for _, s := range ans.Data.Result {
			for _, p := range s.Values {
				if len(p) < 2 {
					return nil, errors.New("query_range answered an entry without a line")
				}
				ts, err := strconv.ParseInt(p[0], 10, 64)
				if err != nil {
					return nil, fmt.Errorf("query_range answered timestamp %q", p[0])
				}
				out[ts] = p[1]
				n++
				last = max(last, ts)
			}
		}
		// The canary's timestamps are unique: a full page goes on strictly
		// past its newest entry.
		if n < limit || last >= end {
			return out, nil
		}
		start = last + 1
	}
}

// count asks count_over_time(<selector>[rng]) at t and sums the answer.
func (c *client) count(ctx context.Context, selector string, rng time.Duration, t int64) (float64, error) {
	q := fmt.Sprintf("count_over_time(%s[%dms])", selector, rng.Milliseconds())
	v := url.Values{"query": {q}, "time": {strconv.FormatInt(t, 10)}}
	req, err := c.request(ctx, http.MethodGet, "/loki/api/v1/query?"+v.Encode(), nil)
	if err != nil {
		return 0, err
	}
	b, err := c.do(req, http.StatusOK)
	if err != nil {
		return 0, err
	}
	var ans struct {
		Status string
		Data   struct {
			ResultType string
			Result     []struct {
				Value []any
			}
		}
	}
	if err := json.Unmarshal(b, &ans); err != nil {
		return 0, fmt.Errorf("query answer: %w", err)
	}
	if ans.Status != "success" || ans.Data.ResultType != "vector" {
		return 0, fmt.Errorf("query answered %s %s", ans.Status, ans.Data.ResultType)
	}
	var sum float64
	for _, r := range ans.Data.Result {
		if len(r.Value) != 2 {
			return 0, errors.New("query answered a sample without a value")
		}
		s, _ := r.Value[1].(string)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("query answered value %v", r.Value[1])
		}
		sum += f
	}
	return sum, nil
}

// tailFrame is one message of /loki/api/v1/tail.
type tailFrame struct {
	Streams []struct {
		Values [][]json.RawMessage
	}
	DroppedEntries []json.RawMessage `json:"dropped_entries"`
}

// dialTail opens a tail of query from start.
func (c *client) dialTail(ctx context.Context, query string, start time.Time) (*websocket.Conn, error) {
	u := strings.Replace(c.base, "http", "ws", 1) + "/loki/api/v1/tail?" + url.Values{
		"query": {query}, "start": {strconv.FormatInt(start.UnixNano(), 10)}, "limit": {"1000"},
	}.Encode()
	h := http.Header{}
	if c.tenant != "" {
		h.Set("X-Scope-OrgID", c.tenant)
	}
	conn, resp, err := websocket.DefaultDialer.DialContext(ctx, u, h)
	if err != nil {
		if resp != nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			return nil, fmt.Errorf("tail: %w: status %d: %s", err, resp.StatusCode, strings.TrimSpace(string(b)))
		}
		return nil, fmt.Errorf("tail: %w", err)
	}
	return conn, nil
}

// entries are a frame's (timestamp, line) pairs, and its dropped entries.
func (f *tailFrame) entries() (ts []int64, lines []string, dropped int, err error) {
	for _, s := range f.Streams {
		for _, v := range s.Values {
			if len(v) < 2 {
				return nil, nil, 0, errors.New("tail sent an entry without a line")
			}
			var tss, l string
			if err := json.Unmarshal(v[0], &tss); err != nil {
				return nil, nil, 0, fmt.Errorf("tail sent timestamp %s", v[0])
			}
			if err := json.Unmarshal(v[1], &l); err != nil {
				return nil, nil, 0, fmt.Errorf("tail sent line %s", v[1])
			}
			t, err := strconv.ParseInt(tss, 10, 64)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("tail sent timestamp %q", tss)
			}
			ts = append(ts, t)
			lines = append(lines, l)
		}
	}
	return ts, lines, len(f.DroppedEntries), nil
}
