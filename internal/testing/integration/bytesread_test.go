package integration

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
)

// TestMaxQueryBytesRead: with Loki's max_query_bytes_read set, metric
// queries and filtered log queries whose selectors read more line bytes
// than the limit get Loki's 400 before they run; unfiltered log queries,
// Grafana's "datasample" queries and smaller selectors run.
func TestMaxQueryBytesRead(t *testing.T) {
	for _, tg := range targetsWith(t, func(c *config.Config) { c.Limits.MaxQueryBytesRead = 1000 }) {
		t.Run(tg.name, func(t *testing.T) {
			at := base.Add(10 * time.Minute)
			line := strings.Repeat("x", 100)
			var big []entry
			for i := range 20 { // 2,000 bytes
				big = append(big, entry{ns(at.Add(time.Duration(i) * time.Second)), line})
			}
			tg.pushJSON(t, "bytes", jsonPush(map[string]string{"app": "big"}, big...))
			tg.pushJSON(t, "bytes", jsonPush(map[string]string{"app": "small"}, entry{ns(at), line}))
			instant := func(q string) url.Values { return url.Values{"query": {q}, "time": {ns(at.Add(time.Hour))}} }
			logs := func(q string) url.Values { return rangeParams(q, base, base.Add(time.Hour), 100, "backward") }
			const refused = "the query would read too many bytes (query: 2.0 KiB, limit: 1000 B); consider adding more specific stream selectors or reduce the time range of the query"
			for _, c := range []struct {
				path   string
				params url.Values
				tags   string
				status int
			}{
				{"/loki/api/v1/query", instant(`count_over_time({app="big"}[2h])`), "", http.StatusBadRequest},
				{"/loki/api/v1/query", instant(`count_over_time({app="big"}[2h] offset 2h)`), "", http.StatusOK},
				{"/loki/api/v1/query", instant(`count_over_time({app="small"}[2h])`), "", http.StatusOK},
				{"/loki/api/v1/query_range", logs(`{app="big"}`), "", http.StatusOK},
				{"/loki/api/v1/query_range", logs(`{app="big"} |= "x"`), "", http.StatusBadRequest},
				{"/loki/api/v1/query_range", logs(`{app="big"} |= "x"`), "source=grafana-lokiexplore-app,feature=datasample", http.StatusOK},
			} {
				r := tg.get(t, c.path, "bytes", c.params, map[string]string{"X-Query-Tags": c.tags, "Cache-Control": "no-cache"})
				if r.status != c.status || (c.status == http.StatusBadRequest && strings.TrimSpace(string(r.body)) != refused) {
					t.Errorf("%s %s: %d %s, want %d", c.path, c.params.Get("query"), r.status, r.body, c.status)
				}
			}
		})
	}
}
