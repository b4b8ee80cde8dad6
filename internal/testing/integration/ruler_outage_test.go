package integration

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/ruler/eval"
	"github.com/vloki/vloki/internal/testing/rulertest"
	"github.com/vloki/vloki/internal/testing/vltest"
)

const outageGroup = `name: outage
interval: 2s
rules:
  - record: outage:lines
    expr: sum(count_over_time({app="outage"}[1h]))
`

// Remote-write metrics of a tenant in vloki's /metrics (Loki's names).
const (
	rwSent    = "loki_ruler_wal_prometheus_remote_storage_samples_total"
	rwRetried = "loki_ruler_wal_prometheus_remote_storage_samples_retried_total"
	rwPending = "loki_ruler_wal_prometheus_remote_storage_samples_pending"
	missed    = "loki_prometheus_rule_group_iterations_missed_total"
)

// TestRulerRemoteWriteOutage: while the remote-write receiver is down,
// evaluation goes on and the samples wait in the tenant's queue (vloki's
// /metrics shows the retries and the pending samples); once the receiver
// is back they all arrive: every slot of the group has exactly one
// sample, none lost, none doubled.
func TestRulerRemoteWriteOutage(t *testing.T) {
	t.Parallel()
	const tenant, interval = "rw-outage", 2 * time.Second
	vm := rulertest.StartVictoriaMetrics(t)
	emb, err := vltest.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Auth.Enabled = true
	cfg.Ruler.Storage.Local.Directory, cfg.Ruler.EnableEvaluation = t.TempDir(), true
	cfg.Ruler.RemoteWrite.Enabled, cfg.Ruler.RemoteWrite.URL, cfg.Ruler.WAL.Dir = true, vm.WriteURL("outage"), t.TempDir()
	tg, _ := serve(t, cfg, emb, "embedded")
	now := time.Now()
	tg.pushJSON(t, tenant, jsonPush(map[string]string{"app": "outage"},
		entry{ns(now.Add(-10 * time.Second)), "a"}, entry{ns(now.Add(-9 * time.Second)), "b"}, entry{ns(now.Add(-8 * time.Second)), "c"}))
	posted := time.Now()
	expectAnswer(t, "create", tg.rulerDo(t, "POST", "/loki/api/v1/rules/ns", tenant, outageGroup), 202, appJSON, accepted)

	exported := func() rulertest.Series {
		got := vm.Export(t, `outage:lines{src="outage"}`)
		if len(got) > 1 {
			t.Fatalf("exported %d series: %+v", len(got), got)
		}
		if len(got) == 0 {
			return rulertest.Series{}
		}
		return got[0]
	}
	rulertest.WaitFor(t, "first samples in VictoriaMetrics", 30*time.Second, func() bool { return len(exported().Timestamps) >= 2 })
	before := tg.metrics(t)
	if before.sum(rwSent, tenant) == 0 || before.sum(rwRetried, tenant) != 0 {
		t.Errorf("before the outage: %s %v, %s %v", rwSent, before.sum(rwSent, tenant), rwRetried, before.sum(rwRetried, tenant))
	}

	vm.Stop()
	down := time.Now()
	time.Sleep(60 * time.Second)
	during := tg.metrics(t)
	if during.sum(rwRetried, tenant) == 0 || during.sum(rwPending, tenant) == 0 {
		t.Errorf("receiver down for a minute: %s %v, %s %v", rwRetried, during.sum(rwRetried, tenant), rwPending, during.sum(rwPending, tenant))
	}
	vm.Start(t)
	up := time.Now()
	// Prometheus' queue retries at most 5s apart; the next batch leaves
	// within batch_send_deadline (5s).
	rulertest.WaitFor(t, "samples after the restart", 30*time.Second, func() bool {
		ts := exported().Timestamps
		return len(ts) > 0 && ts[len(ts)-1] > up.Add(2*interval).UnixMilli()
	})

	s := exported()
	first, last := s.Timestamps[0], s.Timestamps[len(s.Timestamps)-1]
	step, offset := interval.Milliseconds(), eval.SlotOffset("/rules", tenant, "ns", "outage", interval).Milliseconds()
	if first%step != offset || first > posted.Add(2*interval+time.Second).UnixMilli() || first >= down.UnixMilli() || last <= up.UnixMilli() {
		t.Fatalf("samples from %d to %d (slot offset %dms), rules posted at %d, receiver down %d to %d",
			first, last, offset, posted.UnixMilli(), down.UnixMilli(), up.UnixMilli())
	}
	samples := map[int64]int{}
	for k, ts := range s.Timestamps {
		samples[ts]++
		if v := s.Values[k]; v == nil || *v != 3 {
			t.Errorf("sample at %d: %v, want 3", ts, v)
		}
	}
	for slot := first; slot <= last; slot += step {
		if samples[slot] != 1 {
			t.Errorf("slot %d (%s): %d samples", slot, time.UnixMilli(slot).UTC().Format(time.TimeOnly), samples[slot])
		}
	}
	if n := int64(len(s.Timestamps)); n != (last-first)/step+1 {
		t.Errorf("%d samples for %d slots", n, (last-first)/step+1)
	}
	t.Logf("%d samples, %d during the outage; while down: %v samples retried, %v pending", len(s.Timestamps),
		(up.UnixMilli()-down.UnixMilli())/step, during.sum(rwRetried, tenant), during.sum(rwPending, tenant))
	if t.Failed() {
		t.Logf("%s: %v (a missed evaluation leaves its slot empty)", missed, tg.metrics(t).sum(missed, tenant))
	}
}

// exposition is a Prometheus text exposition.
type exposition []byte

func (tg target) metrics(t *testing.T) exposition {
	t.Helper()
	r := tg.rulerDo(t, "GET", "/metrics", "", "")
	if r.status != 200 {
		t.Fatalf("/metrics: %d", r.status)
	}
	return r.body
}

// sum adds up the series of the metric whose tenant (label tenant or
// user) is the given one.
func (e exposition) sum(name, tenant string) float64 {
	var total float64
	lines := bufio.NewScanner(bytes.NewReader(e))
	for lines.Scan() {
		line := lines.Text()
		if !strings.HasPrefix(line, name+"{") || !(strings.Contains(line, `tenant="`+tenant+`"`) || strings.Contains(line, `user="`+tenant+`"`)) {
			continue
		}
		if v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64); err == nil {
			total += v
		}
	}
	return total
}
