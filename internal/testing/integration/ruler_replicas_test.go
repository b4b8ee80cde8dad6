package integration

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/testing/vltest"
)

const replicaRules = `name: replicas
rules:
  - record: heartbeat
    expr: vector(1)
  - alert: Always
    expr: vector(1)
    labels:
      severity: page
`

// rulerReplica is one of two vloki sharing a rule directory and a backend.
type rulerReplica struct {
	name string
	tg   target
	stop func()
}

// TestRulerTwoReplicas: two vloki over the same VictoriaLogs and rule
// directory, with the evaluation lease: one evaluates (each slot's sample
// written once, the alert notified once), the other serves the rules API;
// once the holder stops, the other takes over within the lease duration
// and goes on, no slot written twice.
func TestRulerTwoReplicas(t *testing.T) {
	t.Parallel()
	vl := vltest.External(t, vltest.Releases[len(vltest.Releases)-1])
	rw := newInTestRemoteWriteReceiver(t)
	am := &amCapture{}
	amSrv := httptest.NewServer(am)
	t.Cleanup(amSrv.Close)
	dir := t.TempDir()
	const leaseDuration = 3 * time.Second
	start := func(name string) rulerReplica {
		tg, stop := serveApp(t, rulerConfig(t, dir, func(r *config.Ruler) {
			r.Lease.Enabled, r.Lease.Holder, r.Lease.Duration, r.Lease.RenewPeriod = true, name, leaseDuration, time.Second
			r.AlertmanagerURL = amSrv.URL + "/" + name // tells who notified
			r.RemoteWrite.Enabled, r.RemoteWrite.URL, r.WAL.Dir = true, rw.writeURL(name), t.TempDir()
		}), vl.Client, vl.Name)
		return rulerReplica{name, tg, stop}
	}
	const ten = "replicas"
	r1 := start("r1")
	waitHeld(t, r1, true)
	r2 := start("r2")
	// Rules written through the replica that does not evaluate.
	expectAnswer(t, "create", r2.tg.rulerDo(t, "POST", "/loki/api/v1/rules/ns", ten, replicaRules), 202, appJSON, accepted)

	// Six slots evaluated by r1 alone.
	slots := waitSlots(t, rw, ten, "r1", 6, 30*time.Second)
	if got := rw.samples("r2", ten, 0, math.MaxInt64); len(got) != 0 {
		t.Fatalf("the replica without the lease wrote %v", got)
	}
	waitHeld(t, r2, false)
	checkOncePerSlot(t, slots)
	if posts := am.since(time.Time{}); len(posts) != 1 || posts[0].path != "/r1/api/v2/alerts" || len(posts[0].alerts) != 1 {
		t.Fatalf("notifications: %+v", posts)
	}
	// The other replica lists the rules, not evaluated there.
	r := r2.tg.rulerDo(t, "GET", "/prometheus/api/v1/rules", ten, "")
	if r.status != 200 || !strings.Contains(string(r.body), `"name":"heartbeat","query":"vector(1.000000)","labels":{},"health":"unknown"`) {
		t.Errorf("rules on the replica without the lease: %d %s", r.status, r.body)
	}

	// The holder stops; r2 takes over and goes on.
	r1.stop()
	stopped := time.Now()
	waitHeld(t, r2, true)
	after := waitSlots(t, rw, ten, "r2", 4, 30*time.Second)
	if first := time.UnixMilli(after[0]); first.Sub(stopped) > leaseDuration {
		t.Errorf("r2's first slot %v, %v after r1 stopped: more than the lease duration", first, first.Sub(stopped))
	}
	all := append(rw.heartbeats("r1", ten), rw.heartbeats("r2", ten)...)
	checkOncePerSlot(t, all)
	if last := slices.Max(rw.heartbeats("r1", ten)); last >= after[0] {
		t.Errorf("r1 wrote slot %d after r2 began at %d", last, after[0])
	}
	posts := am.since(time.Time{})
	var r1Posts, r2Posts int
	for _, p := range posts {
		switch p.path {
		case "/r1/api/v2/alerts":
			r1Posts++
		case "/r2/api/v2/alerts":
			r2Posts++
		}
	}
	// r2 starts its alert afresh (no shared alert state): one
	// notification of its own; r1 sent none more.
	if r1Posts != 1 || r2Posts != 1 {
		b, _ := json.Marshal(posts)
		t.Errorf("notifications by r1 %d, r2 %d: %s", r1Posts, r2Posts, b)
	}
}

// waitHeld waits until the replica's /metrics says whether it holds the
// lease.
func waitHeld(t *testing.T, r rulerReplica, held bool) {
	t.Helper()
	want := "vloki_ruler_lease_held 0"
	if held {
		want = "vloki_ruler_lease_held 1"
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp := r.tg.do(t, "GET", "/metrics", "", nil, nil)
		if strings.Contains(string(resp.body), want+"\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s not in /metrics", r.name, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// heartbeats are the slots src wrote its heartbeat sample at.
func (r *inTestRemoteWriteReceiver) heartbeats(src, tenant string) []int64 {
	var out []int64
	for _, s := range r.samples(src, tenant, 0, math.MaxInt64) {
		if s.Series == "__name__=heartbeat" && !s.stale() {
			out = append(out, s.T)
		}
	}
	return out
}

// waitSlots waits until src has written n heartbeats, and returns them.
func waitSlots(t *testing.T, rw *inTestRemoteWriteReceiver, tenant, src string, n int, within time.Duration) []int64 {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if hb := rw.heartbeats(src, tenant); len(hb) >= n {
			return hb
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s wrote %d heartbeats, want %d", src, len(rw.heartbeats(src, tenant)), n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkOncePerSlot: no slot written twice.
func checkOncePerSlot(t *testing.T, slots []int64) {
	t.Helper()
	seen := map[int64]bool{}
	for _, s := range slots {
		if seen[s] {
			t.Fatalf("slot %s written twice: %v", time.UnixMilli(s).UTC().Format("15:04:05.000"), slots)
		}
		seen[s] = true
	}
}
