package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
)

// TestLimitsRuntimeOverridesUnderLoad: while tenants A and B query without
// pause, the runtime configuration file is rewritten to lower A's
// max_entries_limit_per_query, max_query_length, max_line_size and
// ingestion rate. Once the reload is in force (its hash in /metrics), every
// A request over the new limits gets Loki's exact 400, before it none
// did, B is never affected, and no request fails otherwise; A's pushes
// meet the new push limits at once, B's do not.
func TestLimitsRuntimeOverridesUnderLoad(t *testing.T) {
	var files []string
	tgs := targetsWith(t, func(c *config.Config) {
		f := filepath.Join(t.TempDir(), "runtime.yaml")
		writeRuntime(t, f, "overrides:\n  lim-b:\n    max_query_series: 400\n")
		c.RuntimeConfig.File, c.RuntimeConfig.Period = f, 50*time.Millisecond
		files = append(files, f)
	})
	for i, tg := range tgs {
		t.Run(tg.name, func(t *testing.T) { overridesUnderLoad(t, tg, files[i]) })
	}
}

// The A answers once its limits are lowered.
const (
	entriesRefused = "max entries limit per query exceeded, limit > max_entries_limit_per_query (1000 > 500)"
	lengthRefused  = "the query time range exceeds the limit (query length: 2h30m0s, limit: 1h)"
)

func overridesUnderLoad(t *testing.T, tg target, file string) {
	// Ranges ending before the cache freshness window: their answers are
	// cached, and must not be served once A's limits are lower.
	end := time.Now().Add(-30 * time.Minute)
	for _, tenant := range []string{"lim-a", "lim-b"} {
		tg.pushJSON(t, tenant, jsonPush(map[string]string{"app": "lim"}, entry{ns(end.Add(-10 * time.Minute)), "line of " + tenant}))
	}
	requests := map[string]string{
		"entries": "/loki/api/v1/query_range?" + url.Values{"query": {`{app="lim"}`}, "limit": {"1000"},
			"start": {ns(end.Add(-30 * time.Minute))}, "end": {ns(end)}}.Encode(),
		"length": "/loki/api/v1/labels?" + url.Values{"start": {ns(end.Add(-150 * time.Minute))}, "end": {ns(end)}}.Encode(),
	}
	var (
		mu      sync.Mutex
		results []limitResult
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	for _, tenant := range []string{"lim-a", "lim-b"} {
		for kind, path := range requests {
			for range 2 {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						r := limitRequest(tg.url+path, tenant, kind)
						mu.Lock()
						results = append(results, r)
						mu.Unlock()
					}
				})
			}
		}
	}
	time.Sleep(300 * time.Millisecond) // load under the old limits
	pushLines(t, tg, "lim-a", 1, 200, http.StatusNoContent, "")

	lowered := "overrides:\n  lim-a:\n    max_entries_limit_per_query: 500\n    max_query_length: 1h\n" +
		"    max_line_size: 100B\n    ingestion_rate_mb: 0.001\n    ingestion_burst_size_mb: 0.001\n" +
		"  lim-b:\n    max_query_series: 400\n"
	written := time.Now()
	writeRuntime(t, file, lowered)
	inForce := waitRuntimeHash(t, tg, lowered)
	time.Sleep(300 * time.Millisecond) // load under the new limits
	close(stop)
	wg.Wait()

	counts := checkLimitResults(t, results, written, inForce)
	for _, k := range []string{"lim-a/entries/400", "lim-a/length/400", "lim-b/entries/200", "lim-b/length/200"} {
		if counts[k] == 0 {
			t.Errorf("no %s answer: %v", k, counts)
		}
	}

	pushLines(t, tg, "lim-a", 1, 200, http.StatusBadRequest,
		`max entry size '100' bytes exceeded for stream '{app="lim", service_name="lim"}' while adding an entry with length '200' bytes`)
	pushLines(t, tg, "lim-b", 1, 200, http.StatusNoContent, "")
	pushLines(t, tg, "lim-a", 10, 99, http.StatusNoContent, "") // 990 of the 1048 bytes of burst
	pushLines(t, tg, "lim-a", 10, 99, http.StatusTooManyRequests,
		"ingestion rate limit exceeded for user lim-a (limit: 1048 bytes/sec) while attempting to ingest '10' lines totaling '990' bytes, reduce log volume or contact your Loki administrator to see if the limit can be increased")
	pushLines(t, tg, "lim-b", 10, 99, http.StatusNoContent, "")

	// Logs Drilldown reads each tenant's own limits.
	for tenant, want := range map[string]string{
		"lim-a": `"max_entries_limit_per_query":500,"max_line_size_truncate":false,"max_query_bytes_read":"0B","max_query_length":"1h"`,
		"lim-b": `"max_entries_limit_per_query":5000,"max_line_size_truncate":false,"max_query_bytes_read":"0B","max_query_length":"30d1h"`,
	} {
		if r := tg.get(t, "/loki/api/v1/drilldown-limits", tenant, nil, nil); !strings.Contains(string(r.body), want) {
			t.Errorf("drilldown-limits of %s: %s", tenant, r.body)
		}
	}

	// A bad file keeps the limits in force, and says so in Loki's gauge.
	writeRuntime(t, file, "overrides:\n  lim-a:\n    max_query_length: soon\n")
	waitMetric(t, tg, `loki_runtime_config_last_reload_successful{config="loki"} 0`)
	if r := limitRequest(tg.url+requests["length"], "lim-a", "length"); r.status != http.StatusBadRequest || r.body != lengthRefused {
		t.Errorf("after a bad file: %d %q", r.status, r.body)
	}
}

// limitResult is one answer of the load.
type limitResult struct {
	tenant, kind string
	start, end   time.Time
	status       int
	body         string
	err          error
}

// limitRequest sends one GET; safe in any goroutine.
func limitRequest(u, tenant, kind string) limitResult {
	r := limitResult{tenant: tenant, kind: kind, start: time.Now()}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		r.err = err
		return r
	}
	req.Header.Set("X-Scope-OrgID", tenant)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.err = err
		return r
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	r.status, r.body, r.err, r.end = resp.StatusCode, string(b), err, time.Now()
	return r
}

// checkLimitResults requires B's answers all 200; A's 200 until the file
// was written, Loki's 400 once the change was in force (either while it
// came); it counts tenant/kind/status.
func checkLimitResults(t *testing.T, results []limitResult, written, inForce time.Time) map[string]int {
	t.Helper()
	refused := map[string]string{"entries": entriesRefused, "length": lengthRefused}
	counts, failed := map[string]int{}, 0
	for _, r := range results {
		if failed == 5 {
			t.Fatal("more failures left out")
		}
		counts[fmt.Sprintf("%s/%s/%d", r.tenant, r.kind, r.status)]++
		switch {
		case r.err != nil:
			failed++
			t.Errorf("%s %s: %v", r.tenant, r.kind, r.err)
		case r.status == http.StatusOK && (r.tenant == "lim-b" || !r.start.After(inForce)):
		case r.status == http.StatusBadRequest && r.tenant == "lim-a" && r.body == refused[r.kind] && r.end.After(written):
		default:
			failed++
			t.Errorf("%s %s started %s after the change was in force: %d %q", r.tenant, r.kind, r.start.Sub(inForce), r.status, r.body)
		}
	}
	return counts
}

// pushLines pushes n lines of size bytes as tenant and requires the answer.
func pushLines(t *testing.T, tg target, tenant string, n, size, status int, body string) {
	t.Helper()
	var entries []entry
	for i := range n {
		entries = append(entries, entry{ns(time.Now().Add(time.Duration(i))), fmt.Sprintf("%0*d", size, i)})
	}
	b, err := json.Marshal(jsonPush(map[string]string{"app": "lim"}, entries...))
	if err != nil {
		t.Fatal(err)
	}
	r := tg.do(t, http.MethodPost, "/loki/api/v1/push", tenant, b, map[string]string{"Content-Type": "application/json"})
	if r.status != status || (body != "" && string(r.body) != body) {
		t.Errorf("push of %d lines of %d bytes as %s: %d %q, want %d %q", n, size, tenant, r.status, r.body, status, body)
	}
}

// waitRuntimeHash waits until /metrics shows content's hash as the
// runtime configuration in force, and returns when it first did.
func waitRuntimeHash(t *testing.T, tg target, content string) time.Time {
	t.Helper()
	sum := sha256.Sum256([]byte(content))
	return waitMetric(t, tg, fmt.Sprintf(`loki_runtime_config_hash{config="loki",sha256="%s"} 1`, hex.EncodeToString(sum[:])))
}

// waitMetric waits until /metrics holds the line want, and returns when it
// first did.
func waitMetric(t *testing.T, tg target, want string) time.Time {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(string(tg.get(t, "/metrics", "", nil, nil).body), want) {
			return time.Now()
		}
	}
	t.Fatalf("no %s in /metrics within 10s", want)
	return time.Time{}
}

// writeRuntime replaces the runtime configuration file whole.
func writeRuntime(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
