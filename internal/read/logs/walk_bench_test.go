package logs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/edge/lokijson"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/storage/backend"
)

// cannedTransport answers every request with the same NDJSON body, so the
// benchmark measures vloki's own work on a VictoriaLogs answer.
type cannedTransport struct{ body []byte }

func (c cannedTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: io.NopCloser(bytes.NewReader(c.body)), Header: http.Header{}}, nil
}

func ndjson(n int) []byte {
	var b bytes.Buffer
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		ts := t0.Add(-time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)
		fmt.Fprintf(&b, `{"_time":%q,"_stream":"{app=\"api\",env=\"prod\",service_name=\"api\"}","_msg":"{\"level\":\"info\",\"msg\":\"request served\",\"status\":200,\"path\":\"/api/v1/items/%d\",\"took\":\"15ms\"}","app":"api","env":"prod","service_name":"api","detected_level":"info","trace_id":"%016x"}`+"\n", ts, i, i)
	}
	return b.Bytes()
}

func BenchmarkLogQueryNDJSONToLoki(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		body := ndjson(n)
		c, err := backend.New("http://canned", cannedTransport{body: body}, backend.Options{})
		if err != nil {
			b.Fatal(err)
		}
		// One window holds every row and the batch comes back short of the
		// limit, so each iteration does exactly one fetch.
		t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
		req := Request{
			Query: &plan.LogQuery{Pushdown: logsql.Any{}},
			Start: t0.Add(-30 * time.Minute).UnixNano(), End: t0.Add(time.Nanosecond).UnixNano(),
			Limit: n + 1, Direction: Backward, Categorize: true,
		}
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			var out []byte
			for i := 0; i < b.N; i++ {
				res, _, err := Walk(context.Background(), c, tenant.ID{}, req)
				if err != nil {
					b.Fatal(err)
				}
				out = lokijson.AppendStreams(out[:0], res.Streams, []string{"categorize-labels"}, lokijson.Stats{})
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}
