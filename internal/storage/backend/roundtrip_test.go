package backend_test

import (
	"context"
	"os"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/grafana/loki/pkg/push"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestPushQueryRoundTrip: a push is stored alike by the embedded engine
// (rows handed over directly) and by VictoriaLogs over HTTP (its Loki
// protobuf endpoint): the same fields with the same values, row by row,
// for lines and labels that need quoting, an empty line and trailing
// spaces. (Metadata without a name or a value never reach it: the
// endpoint refuses them, push validation drops them.)
func TestPushQueryRoundTrip(t *testing.T) {
	ts := time.Date(2024, 5, 1, 12, 0, 0, 123456789, time.UTC)
	at := func(i int) time.Time { return ts.Add(time.Duration(i) * time.Millisecond) }
	streams := []backend.PushStream{
		{Labels: lokidata.Labels{{Name: "app", Value: "api"}, {Name: "env", Value: "prod"}}, Entries: []push.Entry{
			{Timestamp: at(0), Line: `{"level":"info","msg":"héllo \u001b[31mred\u001b[0m"}`,
				StructuredMetadata: push.LabelsAdapter{{Name: "trace_id", Value: "abc"}}},
			{Timestamp: at(1), Line: "trailing spaces  \n", StructuredMetadata: push.LabelsAdapter{{Name: "k", Value: "v"}, {Name: "k2", Value: "v2"}}},
			{Timestamp: at(2), Line: ""},
		}},
		{Labels: lokidata.Labels{{Name: "app", Value: "api"}, {Name: "odd", Value: "quote \" back\\slash\nnew line ü"}}, Entries: []push.Entry{
			{Timestamp: at(3), Line: "x"},
		}},
	}
	rows := map[string][]map[string]string{}
	for _, b := range vltest.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			tenant := tenant.ID{AccountID: 7, ProjectID: 1}
			if err := b.Client.PushLoki(ctx, tenant, streams); err != nil {
				t.Fatal(err)
			}
			vltest.Flush(t, b.Client)
			var got []map[string]string
			err := b.Client.Query(ctx, tenant, backend.QueryRequest{
				Query: logsql.Query{Filter: logsql.And{logsql.TimeRange{Start: at(0).UnixNano(), End: at(3).UnixNano()}, logsql.Text(`{app="api"}`)}}.String(),
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
			if len(got) != 4 {
				t.Fatalf("got %d rows: %v", len(got), got)
			}
			sort.Slice(got, func(i, j int) bool { return got[i]["_time"] < got[j]["_time"] })
			row := got[0]
			if row["_msg"] != streams[0].Entries[0].Line {
				t.Errorf("_msg = %q", row["_msg"])
			}
			if row["_time"] != "2024-05-01T12:00:00.123456789Z" {
				t.Errorf("_time = %q", row["_time"])
			}
			if row["trace_id"] != "abc" || row["_stream"] != `{app="api",env="prod"}` {
				t.Errorf("row = %v", row)
			}
			if got[1]["k"] != "v" || got[1]["k2"] != "v2" || got[1]["_msg"] != "trailing spaces  \n" {
				t.Errorf("second row: %v", got[1])
			}
			rows[b.Name] = got
		})
	}
	var first string
	for name, r := range rows {
		if first == "" {
			first = name
			continue
		}
		if !reflect.DeepEqual(r, rows[first]) {
			t.Errorf("%s and %s stored the push differently:\n%v\n%v", first, name, r, rows[first])
		}
	}
	if len(rows) < 2 {
		t.Errorf("only %d backends ran", len(rows))
	}
}

func TestMain(m *testing.M) {
	os.Exit(vltest.Main(m))
}
