package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/grafana/loki/pkg/push"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/schema"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestLineBytesWithAndWithoutLengthField checks the bytes that volumes,
// index stats and bytes_over_time read from the line-length field vloki
// writes, on rows that carry it (pushed through vloki) and rows that do
// not (written straight to VictoriaLogs, as by an older vloki): pushed-down
// sums equal those computed from the rows' lines, empty lines count 0.
func TestLineBytesWithAndWithoutLengthField(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	lines := []string{"", "x", "level=warn some words", "ünïcödé ✓", `{"status":503,"path":"/a/b"}`}
	var fresh, old []entry
	want := map[string]int{}
	for i := 0; i < 1200; i++ {
		e := entry{ns(base.Add(time.Duration(r.Int64N(int64(3 * time.Hour))))), lines[r.IntN(len(lines))]}
		if i%2 == 0 {
			fresh, want["lbnew"] = append(fresh, e), want["lbnew"]+len(e.line)
		} else {
			old, want["lbold"] = append(old, e), want["lbold"]+len(e.line)
		}
	}
	tn := (&tenant.Resolver{}).Map("lb")
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tg.pushJSON(t, "lb", jsonPush(map[string]string{"app": "lbnew"}, fresh...))
			pushWithoutLengths(t, tg.vl, tn, lokidata.Labels{{Name: "app", Value: "lbold"}, {Name: "service_name", Value: "lbold"}}, old)
			for _, q := range []string{`sum(bytes_over_time({app=~"lb.*"}[5m]))`, `sum by (app) (bytes_rate({app=~"lb.*"}[7m]))`} {
				for _, step := range []time.Duration{time.Minute, 7 * time.Minute, 0} {
					compareSumOfRange(t, tg.vl, tn, q, step, 0)
				}
			}
			span := url.Values{"query": {`{app=~"lb.*"}`}, "start": {ns(base)}, "end": {ns(base.Add(3 * time.Hour))}}
			var stats struct{ Bytes int }
			decode(t, tg.get(t, "/loki/api/v1/index/stats", "lb", span, nil), &stats)
			if stats.Bytes != want["lbnew"]+want["lbold"] {
				t.Errorf("index/stats bytes %d, lines hold %d", stats.Bytes, want["lbnew"]+want["lbold"])
			}
			span.Set("targetLabels", "app")
			var vol struct {
				Data struct {
					Result []struct {
						Metric map[string]string
						Value  [2]any
					}
				}
			}
			decode(t, tg.get(t, "/loki/api/v1/index/volume", "lb", span, nil), &vol)
			for _, s := range vol.Data.Result {
				if got := s.Value[1].(string); got != strconv.Itoa(want[s.Metric["app"]]) {
					t.Errorf("volume of %s: %s, lines hold %d", s.Metric["app"], got, want[s.Metric["app"]])
				}
			}
			if len(vol.Data.Result) != 2 {
				t.Errorf("volume: %d series, want 2", len(vol.Data.Result))
			}
		})
	}
}

// pushWithoutLengths writes rows as vloki did before it stored line
// lengths: a Loki push straight to VictoriaLogs, empty lines marked.
func pushWithoutLengths(t *testing.T, c *backend.Client, tn tenant.ID, labels lokidata.Labels, es []entry) {
	t.Helper()
	s := backend.PushStream{Labels: labels}
	for _, e := range es {
		n, err := strconv.ParseInt(e.ts, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		pe := push.Entry{Timestamp: time.Unix(0, n), Line: e.line}
		if e.line == "" {
			pe.StructuredMetadata = push.LabelsAdapter{{Name: schema.EmptyLineField, Value: "1"}}
		}
		s.Entries = append(s.Entries, pe)
	}
	if err := c.PushLoki(context.Background(), tn, []backend.PushStream{s}); err != nil {
		t.Fatal(err)
	}
	vltest.Flush(t, c)
}

func decode(t *testing.T, r response, into any) {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if err := json.Unmarshal(r.body, into); err != nil {
		t.Fatal(fmt.Errorf("%w: %s", err, r.body))
	}
}
