package main

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNeedleIndexSurvivesRestart: the needle index saved at a clean
// shutdown comes back with the stream index, so a search for an id no row
// holds asks the storage nothing; after a run with the index off, whose
// rows the saved filters lack, those rows are searched by reading, in the
// next run and in the one after it.
func TestNeedleIndexSurvivesRestart(t *testing.T) {
	bin, data := buildBinary(t), t.TempDir()
	in := startInstance(t, bin, data)
	now := time.Now()
	for h := 1; h <= 3; h++ {
		in.pushAt(t, now.Add(-time.Duration(h)*time.Hour), fmt.Sprintf("trace_id=%019d", h))
	}
	in.stop(t)
	if _, err := os.Stat(filepath.Join(data, "vloki-needle-index.gob")); err != nil {
		t.Fatalf("no needle index saved on SIGTERM: %v", err)
	}

	in = startInstance(t, bin, data)
	if got, asked := in.search(t, fmt.Sprintf("%019d", 2)); !strings.Contains(got, "trace_id=0000000000000000002") || asked == 0 {
		t.Errorf("an id of the restored hours: %v storage requests, %s", asked, got)
	}
	if got, asked := in.search(t, "5555555555555555555"); asked != 0 || !strings.Contains(got, `"result":[]`) {
		t.Errorf("an id in no row after a restart: %v storage requests, %s", asked, got)
	}
	in.stop(t)

	in = startInstance(t, bin, data, "-frontend.needle-index-max-bytes=0")
	in.pushAt(t, now.Add(-90*time.Minute), "trace_id=7777777777777777777")
	in.stop(t)

	// Twice: the first start restores nothing (the saved filters lack the
	// row), the second the first's filters, which lack it too.
	for range 2 {
		in = startInstance(t, bin, data)
		if got, _ := in.search(t, "7777777777777777777"); !strings.Contains(got, "trace_id=7777777777777777777") {
			t.Errorf("a row written with the index off is missed after a restart: %.200s", got)
		}
		in.stop(t)
	}
}

func (in *instance) pushAt(t *testing.T, at time.Time, line string) {
	t.Helper()
	body := fmt.Sprintf(`{"streams":[{"stream":{"app":"needles"},"values":[["%d",%q]]}]}`, at.UnixNano(), line)
	resp, err := http.Post(in.base+"/loki/api/v1/push", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("push: %d", resp.StatusCode)
	}
}

// stop ends the instance with SIGTERM, a clean shutdown.
func (in *instance) stop(t *testing.T) {
	t.Helper()
	if err := in.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := in.wait(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// search asks the last four hours for lines holding id, and how many
// storage requests that took.
func (in *instance) search(t *testing.T, id string) (string, float64) {
	t.Helper()
	before := in.storageRequests(t)
	q := url.Values{"query": {`{app="needles"} |= "` + id + `"`}, "since": {"4h"}, "limit": {"100"}}
	body := get(t, in.base+"/loki/api/v1/query_range?"+q.Encode())
	return body, in.storageRequests(t) - before
}

var queryRangeRequests = regexp.MustCompile(`vloki_backend_requests_per_request_sum\{route="query_range"\} (\S+)`)

func (in *instance) storageRequests(t *testing.T) float64 {
	t.Helper()
	m := queryRangeRequests.FindStringSubmatch(get(t, in.base+"/metrics"))
	if m == nil {
		return 0
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
