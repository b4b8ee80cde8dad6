package rulertest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/vloki/vloki/internal/testing/vlrelease"
)

// VictoriaMetrics is a running victoria-metrics single node (built by
// vlrelease) with its data in the test's temporary directory.
type VictoriaMetrics struct {
	URL string
	p   *process
}

// StartVictoriaMetrics builds VictoriaMetrics once and starts it for the
// test: no retention limit and no search latency offset, so what was
// written is exported at once.
func StartVictoriaMetrics(t testing.TB) *VictoriaMetrics {
	t.Helper()
	bin, err := vlrelease.VictoriaMetrics()
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	vm := &VictoriaMetrics{URL: "http://" + addr}
	vm.p = newProcess(t, "victoria-metrics", vm.URL+"/health", []string{bin, "-httpListenAddr=" + addr,
		"-retentionPeriod=100y", "-search.latencyOffset=0", "-storageDataPath=" + t.TempDir()})
	if err := vm.p.start(); err != nil {
		t.Fatal(err)
	}
	return vm
}

// WriteURL is the remote write URL of one writer: VictoriaMetrics adds
// the label src=<src> to everything written there, which tells writers
// apart (it ignores X-Scope-OrgID).
func (vm *VictoriaMetrics) WriteURL(src string) string {
	return vm.URL + "/api/v1/write?extra_label=" + url.QueryEscape("src="+src)
}

// Stop stops the process (by its PID); Start starts it again.
func (vm *VictoriaMetrics) Stop() { vm.p.stop() }

// Start starts a stopped VictoriaMetrics again on the same port and data
// directory, and waits until it serves.
func (vm *VictoriaMetrics) Start(t testing.TB) {
	t.Helper()
	if err := vm.p.start(); err != nil {
		t.Fatal(err)
	}
}

// PID is the process id.
func (vm *VictoriaMetrics) PID() int { return vm.p.cmd.Process.Pid }

// Series is one exported series. A nil value is a stale marker (exported
// as null).
type Series struct {
	Metric     map[string]string `json:"metric"`
	Values     []*float64        `json:"values"`
	Timestamps []int64           `json:"timestamps"`
}

// Export is every series matching the selector, with all its samples:
// POST /api/v1/export after a flush of what was received.
func (vm *VictoriaMetrics) Export(t testing.TB, match string) []Series {
	t.Helper()
	if resp, err := http.Get(vm.URL + "/internal/force_flush"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	resp, err := http.PostForm(vm.URL+"/api/v1/export", url.Values{"match[]": {match}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("export %s: %s", match, resp.Status)
	}
	var out []Series
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 64<<20)
	for lines.Scan() {
		var s Series
		if err := json.Unmarshal(lines.Bytes(), &s); err != nil {
			t.Fatalf("export line %q: %v", lines.Text(), err)
		}
		out = append(out, s)
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
