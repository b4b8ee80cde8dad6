package backend_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/grafana/loki/pkg/push"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

func TestPushQueryRoundTrip(t *testing.T) {
	ts := time.Date(2024, 5, 1, 12, 0, 0, 123456789, time.UTC)
	req := push.PushRequest{Streams: []push.Stream{{
		Labels: `{app="api", env="prod"}`,
		Entries: []push.Entry{
			{Timestamp: ts, Line: `{"level":"info","msg":"héllo \u001b[31mred\u001b[0m"}`,
				StructuredMetadata: push.LabelsAdapter{{Name: "trace_id", Value: "abc"}}},
		},
	}}}
	raw, err := req.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	body := raw
	for _, b := range vltest.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			tenant := tenant.ID{AccountID: 7, ProjectID: 1}
			if err := b.Client.PushLoki(ctx, tenant, body); err != nil {
				t.Fatal(err)
			}
			vltest.Flush(t, b.Client)
			var got []map[string]string
			err := b.Client.Query(ctx, tenant, backend.QueryRequest{
				Query: logsql.Query{Filter: logsql.And{logsql.TimeRange{Start: ts.UnixNano(), End: ts.UnixNano()}, logsql.Text(`{app="api"}`)}}.String(),
			}, func(r *backend.Row) error {
				m := map[string]string{}
				for _, f := range r.Fields {
					m[string(f.Name)] = string(f.Value)
				}
				got = append(got, m)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("got %d rows: %v", len(got), got)
			}
			row := got[0]
			if row["_msg"] != req.Streams[0].Entries[0].Line {
				t.Errorf("_msg = %q", row["_msg"])
			}
			if row["_time"] != "2024-05-01T12:00:00.123456789Z" {
				t.Errorf("_time = %q", row["_time"])
			}
			if row["trace_id"] != "abc" || row["_stream"] != `{app="api",env="prod"}` {
				t.Errorf("row = %v", row)
			}
		})
	}
}

func TestMain(m *testing.M) {
	os.Exit(vltest.Main(m))
}
