// Package demo feeds a few services' logs into vloki continuously, so a
// newcomer running `make run` sees data in Grafana at once.
package demo

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/write/ingest"
	"github.com/vloki/vloki/internal/write/push"
)

// service generates one stream's lines.
type service struct {
	labels lokidata.Labels
	line   func(r *rand.Rand, now time.Time) (string, lokidata.Labels)
}

var services = []service{
	{labels: labels("app", "checkout", "namespace", "shop", "env", "prod", "pod", "checkout-7d9f"), line: jsonLine},
	{labels: labels("app", "billing-worker", "namespace", "shop", "env", "prod"), line: logfmtLine},
	{labels: labels("job", "nginx", "namespace", "edge", "env", "prod"), line: accessLine},
}

func labels(kv ...string) lokidata.Labels {
	var ls lokidata.Labels
	for i := 0; i < len(kv); i += 2 {
		ls = append(ls, lokidata.Label{Name: kv[i], Value: kv[i+1]})
	}
	ls.Sort()
	return ls
}

// Run pushes a batch every second until ctx ends.
func Run(ctx context.Context, w *ingest.Writer, log *slog.Logger) {
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if err := w.Write(ctx, tenant.ID{}, batch(r, now), now); err != nil && ctx.Err() == nil {
				log.Warn("demo push failed", "err", err)
			}
		}
	}
}

func batch(r *rand.Rand, now time.Time) *push.Request {
	req := &push.Request{}
	for _, s := range services {
		st := push.Stream{Labels: append(lokidata.Labels(nil), s.labels...)}
		for i := 0; i < 1+r.IntN(4); i++ {
			ts := now.Add(time.Duration(i) * time.Millisecond)
			line, md := s.line(r, ts)
			st.Entries = append(st.Entries, lokidata.Entry{TimestampNs: ts.UnixNano(), Line: line, StructuredMetadata: md})
		}
		req.Streams = append(req.Streams, st)
	}
	return req
}

var levels = []string{"info", "info", "info", "debug", "warn", "error"}

func jsonLine(r *rand.Rand, _ time.Time) (string, lokidata.Labels) {
	lvl := levels[r.IntN(len(levels))]
	trace := fmt.Sprintf("%016x", r.Uint64())
	line := fmt.Sprintf(`{"level":%q,"msg":"order processed","order_id":%d,"amount":%.2f,"duration":"%dms","user":{"id":%d,"country":%q}}`,
		lvl, r.IntN(100000), r.Float64()*300, 5+r.IntN(900), r.IntN(5000), []string{"DE", "US", "FR", "JP"}[r.IntN(4)])
	return line, labels("trace_id", trace)
}

func logfmtLine(r *rand.Rand, _ time.Time) (string, lokidata.Labels) {
	lvl := levels[r.IntN(len(levels))]
	return fmt.Sprintf(`level=%s msg="invoice run" invoices=%d took=%.3fs queue=billing`, lvl, r.IntN(50), r.Float64()*3), nil
}

func accessLine(r *rand.Rand, now time.Time) (string, lokidata.Labels) {
	status := []int{200, 200, 200, 201, 304, 404, 500}[r.IntN(7)]
	path := []string{"/", "/api/cart", "/api/checkout", "/static/app.js"}[r.IntN(4)]
	return fmt.Sprintf(`10.0.%d.%d - - [%s] "GET %s HTTP/1.1" %d %d "-" "Mozilla/5.0"`,
		r.IntN(255), r.IntN(255), now.UTC().Format("02/Jan/2006:15:04:05 -0700"), path, status, 200+r.IntN(20000)), nil
}
