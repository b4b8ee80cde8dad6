package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logsql"
)

// ValueHits is one value of a field-names, field-values or streams answer.
type ValueHits struct {
	Value string `json:"value"`
	Hits  uint64 `json:"hits"`
}

// MetadataRequest selects rows for a metadata call.
type MetadataRequest struct {
	Query      string // a LogsQL filter, without pipes
	Start, End int64  // inclusive Unix ns; zero means unbounded
	Field      string
	Limit      int
}

// LogsQL is the request's filter with its time bounds, as sent. The bounds
// go in a `_time` filter, not in the start and end arguments: the `end`
// argument is inclusive up to VictoriaLogs v1.24 and exclusive after.
func (m MetadataRequest) LogsQL() string {
	if m.Start == 0 && m.End == 0 {
		return m.Query
	}
	end := m.End
	if end == 0 {
		end = math.MaxInt64
	}
	bounds := logsql.TimeRange{Start: m.Start, End: end}
	return logsql.Query{Filter: logsql.And{bounds, logsql.Text(m.Query)}}.String()
}

// Metadata endpoints of VictoriaLogs' querying API.
const (
	FieldNames        = "/select/logsql/field_names"
	FieldValues       = "/select/logsql/field_values"
	StreamFieldNames  = "/select/logsql/stream_field_names"
	StreamFieldValues = "/select/logsql/stream_field_values"
	Streams           = "/select/logsql/streams"
)

// Values calls one of the metadata endpoints and returns its values.
func (c *Client) Values(ctx context.Context, t tenant.ID, endpoint string, m MetadataRequest) ([]ValueHits, error) {
	if d, ok := c.direct.(DirectMetadata); ok {
		metrics.CountBackendRequest(ctx)
		var vs []ValueHits
		err := c.timed(endpoint, func() error {
			var err error
			vs, err = d.Values(ctx, t, endpoint, m)
			return err
		})
		if !errors.Is(err, ErrNotDirect) {
			return vs, err
		}
	}
	form := QueryRequest{Query: m.LogsQL()}.form()
	if m.Field != "" {
		form.Set("field", m.Field)
	}
	if m.Limit > 0 {
		form.Set("limit", strconv.Itoa(m.Limit))
	}
	var out struct {
		Values []ValueHits `json:"values"`
	}
	err := c.timed(endpoint, func() error {
		return c.getJSON(ctx, t, endpoint, form, &out)
	})
	return out.Values, err
}

func (c *Client) getJSON(ctx context.Context, t tenant.ID, path string, form url.Values, dst any) error {
	resp, err := c.do(ctx, t, http.MethodPost, path, form, nil, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(dst); err != nil {
		return fmt.Errorf("decoding VictoriaLogs %s answer: %w", path, err)
	}
	return nil
}
