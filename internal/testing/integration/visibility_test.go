package integration

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestReadYourWrites: an entry is in every answer asked after its push was
// acknowledged, as with Loki's ingesters — also for a stream VictoriaLogs
// has not indexed yet, under a stream filter whose (empty) answer it has
// cached.
func TestReadYourWrites(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			for i := range 3 {
				app := fmt.Sprintf("ryw-%s-%d", tg.name, i)
				q := url.Values{"query": {fmt.Sprintf(`{app=%q}`, app)}, "start": {ns(time.Now().Add(-time.Minute))}, "end": {ns(time.Now().Add(time.Minute))}}
				if r := tg.get(t, "/loki/api/v1/query_range", "ryw", q, nil); strings.Contains(string(r.body), "written") {
					t.Fatalf("before the push: %s", r.body)
				}
				tg.pushNoFlush(t, "ryw", map[string]string{"app": app}, entry{ns(time.Now()), "written"})
				if r := tg.get(t, "/loki/api/v1/query_range", "ryw", q, nil); !strings.Contains(string(r.body), `"written"`) {
					t.Fatalf("push %d not visible right after its acknowledgement: %s", i, r.body)
				}
				lv := url.Values{"start": {ns(time.Now().Add(-time.Minute))}}
				if r := tg.get(t, "/loki/api/v1/label/app/values", "ryw", lv, nil); !strings.Contains(string(r.body), app) {
					t.Fatalf("label values miss %s: %s", app, r.body)
				}
			}
		})
	}
}
