package parity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// Push sends the dataset to a Loki API in JSON pushes of about batchBytes,
// each stream's entries in time order, and fails on any non-204 answer.
func Push(ctx context.Context, baseURL, tenant string, streams []Stream, batchBytes int) error {
	var batch []jsonStream
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := pushBatch(ctx, baseURL, tenant, batch)
		batch, size = batch[:0], 0
		return err
	}
	for _, s := range streams {
		labels := map[string]string{}
		for _, l := range s.Labels {
			labels[l.Name] = l.Value
		}
		cur := jsonStream{Stream: labels}
		for _, e := range s.Entries {
			v := []any{strconv.FormatInt(e.TimestampNs, 10), e.Line}
			if len(e.StructuredMetadata) > 0 {
				md := map[string]string{}
				for _, l := range e.StructuredMetadata {
					md[l.Name] = l.Value
				}
				v = append(v, md)
			}
			cur.Values = append(cur.Values, v)
			size += len(e.Line) + 64
			if size >= batchBytes {
				batch = append(batch, cur)
				if err := flush(); err != nil {
					return err
				}
				cur = jsonStream{Stream: labels}
			}
		}
		if len(cur.Values) > 0 {
			batch = append(batch, cur)
		}
	}
	return flush()
}

type jsonStream struct {
	Stream map[string]string `json:"stream"`
	Values [][]any           `json:"values"`
}

func pushBatch(ctx context.Context, baseURL, tenant string, batch []jsonStream) error {
	body, err := json.Marshal(map[string]any{"streams": batch})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/loki/api/v1/push", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if tenant != "" {
		req.Header.Set("X-Scope-OrgID", tenant)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("push answered %d: %s", resp.StatusCode, b)
	}
	return nil
}
