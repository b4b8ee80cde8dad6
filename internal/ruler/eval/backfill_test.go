package eval

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/prompb"
	"github.com/prometheus/prometheus/rules"

	"github.com/vloki/vloki/internal/edge/tenant"
	vmodel "github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/ruler/rulestore"
)

// writtenSample is one remote-written sample: its series, its time and
// its value's bits (so a stale marker is told from another NaN).
type writtenSample struct {
	series string
	t      int64
	bits   uint64
}

func (s writtenSample) String() string {
	v := math.Float64frombits(s.bits)
	at := s.series + "@" + time.UnixMilli(s.t).UTC().Format("15:04:05.000") + "="
	if value.IsStaleNaN(v) {
		return at + "stale"
	}
	return at + strconv.FormatFloat(v, 'g', -1, 64)
}

// remoteWriteCapture is an in-test remote write v1 receiver (snappy
// protobuf), keeping samples apart by the src of VictoriaMetrics'
// extra_label=src=<src> query parameter and by X-Scope-OrgID.
type remoteWriteCapture struct {
	mu      sync.Mutex
	samples map[string][]writtenSample // "<src>/<tenant>" → samples
	// fail, while above 0, answers that many requests 500.
	fail atomic.Int32
}

func newRemoteWriteCapture(t *testing.T) (*remoteWriteCapture, *httptest.Server) {
	c := &remoteWriteCapture{samples: map[string][]writtenSample{}}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, srv
}

func (c *remoteWriteCapture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.fail.Add(-1) >= 0 {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	b, _ := io.ReadAll(r.Body)
	raw, err := snappy.Decode(nil, b)
	var req prompb.WriteRequest
	if err == nil {
		err = req.Unmarshal(raw)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	key := strings.TrimPrefix(r.URL.Query().Get("extra_label"), "src=") + "/" + r.Header.Get("X-Scope-OrgID")
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ts := range req.Timeseries {
		var ls []string
		for _, l := range ts.Labels {
			ls = append(ls, l.Name+"="+l.Value)
		}
		for _, s := range ts.Samples {
			c.samples[key] = append(c.samples[key], writtenSample{strings.Join(ls, ","), s.Timestamp, math.Float64bits(s.Value)})
		}
	}
}

// of is what src wrote for tenant from..to (ms, included), in time then
// series order.
func (c *remoteWriteCapture) of(src, tenant string, from, to int64) []writtenSample {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []writtenSample
	for _, s := range c.samples[src+"/"+tenant] {
		if s.t >= from && s.t <= to {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b writtenSample) int {
		if a.t != b.t {
			return int(a.t - b.t)
		}
		return strings.Compare(a.series, b.series)
	})
	return out
}

// scriptEngine answers by the query's time: a mock of vloki's engine for
// unit tests, so that live evaluation and backfill meet the same data.
type scriptEngine struct {
	interval time.Duration
}

// Instant: heartbeat always 1; per app, a series present in some slots
// only (k is the slot's number since the epoch).
func (s scriptEngine) Instant(_ context.Context, _ tenant.ID, req engine.InstantRequest) (*engine.Result, error) {
	k := req.Time.UnixNano() / int64(s.interval)
	q := req.Expr.String()
	series := func(pairs ...any) *engine.Result {
		m := &metric.Result{Kind: metric.Vector}
		for i := 0; i < len(pairs); i += 2 {
			m.Series = append(m.Series, vmodel.Series{Metric: []vmodel.Label{{Name: "app", Value: pairs[i].(string)}},
				Points: []vmodel.Point{{TimestampMs: req.Time.UnixMilli(), Value: pairs[i+1].(float64)}}})
		}
		return &engine.Result{Metric: m}
	}
	switch {
	case strings.Contains(q, "heartbeat"):
		return series("hb", 1.0), nil
	case strings.Contains(q, "failing") && k%5 == 0:
		return nil, errors.New("boom")
	}
	var pairs []any
	pairs = append(pairs, "a", float64(k%7))
	if k%4 == 1 || k%4 == 2 {
		pairs = append(pairs, "b", float64(k%3)+0.5)
	}
	if k%6 == 0 {
		pairs = append(pairs, "c", 2.0)
	}
	return series(pairs...), nil
}

// backfillGroups: a heartbeat so that every live slot shows, series that
// come and go (stale markers), rule labels overriding result labels, an
// engine failure every fifth slot, a limit exceeded when three series
// come, and an alerting rule (skipped by the backfill).
var backfillGroups = []rulestore.Group{{Name: "g", Rules: []rulestore.Rule{
	{Record: "heartbeat", Expr: `sum by (app) (count_over_time({app="heartbeat"}[1m]))`},
	{Record: "app:lines", Expr: `sum by (app) (count_over_time({app=~".+"}[1m]))`, Labels: map[string]string{"team": "t"}},
	{Record: "app:renamed", Expr: `sum by (app) (count_over_time({app=~".+"}[1m]))`, Labels: map[string]string{"app": "same"}},
	{Record: "app:failing", Expr: `sum by (app) (count_over_time({app="failing"}[1m]))`},
	{Alert: "A", Expr: `sum by (app) (count_over_time({app=~".+"}[1m])) > 0`},
}}, {Name: "limited", Limit: 2, Rules: []rulestore.Rule{
	{Record: "heartbeat:limited", Expr: `sum by (app) (count_over_time({app="heartbeat"}[1m]))`},
	{Record: "app:limited", Expr: `sum by (app) (count_over_time({app=~".+"}[1m]))`},
}}}

func backfillOptions(t *testing.T, interval time.Duration, rwURL string) Options {
	store, err := rulestore.Open(t.TempDir(), false, quiet())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range backfillGroups {
		if err := store.SetGroup("t1", "ns", g); err != nil {
			t.Fatal(err)
		}
	}
	return Options{Store: store, Engine: scriptEngine{interval}, Tenant: func(string) tenant.ID { return tenant.ID{} },
		RulePath: "/rules", EvaluationInterval: interval, PollInterval: time.Hour, Log: quiet(),
		RemoteWrite: RemoteWrite{URL: rwURL, Dir: t.TempDir(), BatchSendDeadline: 50 * time.Millisecond}}
}

// TestBackfillMatchesLiveEvaluation: the live rules manager writes
// through its WAL to src=live; the backfill of a range live evaluated
// writes to src=backfill exactly the same samples, stale markers included.
func TestBackfillMatchesLiveEvaluation(t *testing.T) {
	capture, srv := newRemoteWriteCapture(t)
	iv := 100 * time.Millisecond
	live := New(backfillOptions(t, iv, srv.URL+"/api/v1/write?extra_label=src=live"))
	live.Start()
	// The range: slots each group evaluated live one after another, and
	// the slot before (a slot missed under load changes what the next
	// marks stale). The WAL may hold the first samples back a few seconds.
	var from, to int64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(iv) {
		from, to = liveRange(capture, iv)
		if to-from >= 12*iv.Milliseconds() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("live evaluation ran too few consecutive slots: %d..%d", from, to)
		}
	}
	live.Stop()
	b := NewBackfiller(backfillOptions(t, iv, srv.URL+"/api/v1/write?extra_label=src=backfill"), 0)
	b.o.Store = live.o.Store
	rep, err := b.Backfill(context.Background(), BackfillRequest{Tenant: "t1", Start: time.UnixMilli(from),
		End: time.UnixMilli(to + 1).Add(-time.Nanosecond)}) // the slot's ns past its ms
	if err != nil {
		t.Fatal(err)
	}
	// Live evaluation also wrote the alerting rule's ALERTS series,
	// which the backfill leaves out.
	// Compared from one interval after the backfill's start: the two
	// groups evaluate at different phases, and the later one's first
	// backfilled slot has no slot before it to mark stale what the live
	// one did.
	lo := from + iv.Milliseconds()
	want := slices.DeleteFunc(capture.of("live", "t1", lo, to), func(s writtenSample) bool { return strings.HasPrefix(s.series, "__name__=ALERTS") })
	got := capture.of("backfill", "t1", from, to)
	if compared := capture.of("backfill", "t1", lo, to); !slices.Equal(want, compared) {
		t.Errorf("backfill differs from live evaluation\nlive:     %v\nbackfill: %v", want, compared)
	}
	stale := 0
	for _, s := range got {
		if value.IsStaleNaN(math.Float64frombits(s.bits)) {
			stale++
		}
	}
	if stale == 0 || rep.StaleMarkers != stale || rep.Samples != len(capture.of("backfill", "t1", 0, math.MaxInt64)) {
		t.Errorf("stale markers: %d written, report %+v", stale, rep)
	}
	if len(rep.Groups) != 2 || rep.Groups[0].SkippedAlertingRules != 1 || rep.Groups[0].FailedEvaluations == 0 ||
		rep.Groups[0].LastError == "" || rep.Groups[1].FailedEvaluations == 0 || rep.Groups[1].LastError != "exceeded limit of 2 with 3 series" {
		t.Errorf("report: %+v", rep)
	}
	for _, s := range got {
		if strings.Contains(s.series, "ALERTS") {
			t.Errorf("alerting rule backfilled: %v", s)
		}
	}
}

// liveRange is the longest range of slots each group evaluated live one
// after another, less its first slot.
func liveRange(capture *remoteWriteCapture, iv time.Duration) (from, to int64) {
	from, to = 0, math.MaxInt64
	for _, heartbeat := range []string{"__name__=heartbeat,app=hb", "__name__=heartbeat:limited,app=hb"} {
		var slots []int64
		for _, s := range capture.of("live", "t1", 0, math.MaxInt64) {
			if s.series == heartbeat {
				slots = append(slots, s.t)
			}
		}
		f, l := longestRun(slots, iv.Milliseconds())
		from, to = max(from, f+iv.Milliseconds()), min(to, l)
	}
	return from, to
}

// longestRun is the first and last of the longest run of timestamps step
// apart.
func longestRun(ts []int64, step int64) (int64, int64) {
	slices.Sort(ts)
	ts = slices.Compact(ts)
	var bestFrom, bestTo int64
	for i := 0; i < len(ts); {
		j := i
		for j+1 < len(ts) && ts[j+1]-ts[j] == step {
			j++
		}
		if ts[j]-ts[i] > bestTo-bestFrom {
			bestFrom, bestTo = ts[i], ts[j]
		}
		i = j + 1
	}
	return bestFrom, bestTo
}

// TestFirstSlotIsPrometheusSlot: the first slot at or after t is on the
// grid of Prometheus' Group.EvalTimestamp for the same group.
func TestFirstSlotIsPrometheusSlot(t *testing.T) {
	iv := time.Minute
	g := rules.NewGroup(rules.GroupOptions{Name: "g", File: GroupFile("/rules", "t1", "ns"), Interval: iv, Opts: &rules.ManagerOptions{}})
	off := SlotOffset("/rules", "t1", "ns", "g", iv)
	for _, at := range []time.Time{time.Unix(1_700_000_000, 0), time.Unix(1_700_000_000, 0).Add(off), time.Unix(1_700_000_000, 0).Add(off + 1)} {
		prev := g.EvalTimestamp(at.UnixNano()) // the last slot at or before
		want := prev
		if prev.Before(at) {
			want = prev.Add(iv)
		}
		if got := firstSlot(at, iv, off); !got.Equal(want) {
			t.Errorf("firstSlot(%v) = %v, want %v", at, got, want)
		}
	}
}

func TestBackfillRefusals(t *testing.T) {
	_, srv := newRemoteWriteCapture(t)
	iv := time.Minute
	b := NewBackfiller(backfillOptions(t, iv, srv.URL+"/api/v1/write"), 100)
	end := time.Now().Add(-time.Hour)
	for _, c := range []struct {
		req  BackfillRequest
		want error
		text string
	}{
		{BackfillRequest{Tenant: "t1"}, ErrBackfillInvalid, "invalid backfill: start and end are required"},
		{BackfillRequest{Tenant: "t1", Start: end, End: end.Add(-time.Second)}, ErrBackfillInvalid, "invalid backfill: end is before start"},
		{BackfillRequest{Tenant: "t1", Start: end, End: time.Now().Add(time.Hour)}, ErrBackfillInvalid, "invalid backfill: end is in the future"},
		{BackfillRequest{Tenant: "t1", Start: end.Add(-60 * iv), End: end}, ErrBackfillInvalid, "split the range"},
		{BackfillRequest{Tenant: "t1", Group: "none", Start: end, End: end}, ErrBackfillNoGroups, "no rule groups found"},
		{BackfillRequest{Tenant: "t2", Start: end, End: end}, ErrBackfillNoGroups, "no rule groups found"},
	} {
		if _, err := b.Backfill(context.Background(), c.req); !errors.Is(err, c.want) || !strings.HasSuffix(err.Error(), c.text) {
			t.Errorf("%+v: %v, want %q", c.req, err, c.text)
		}
	}
	// 60 or 61 slots per group, by where its offset falls: one group
	// alone fits.
	if rep, err := b.Backfill(context.Background(), BackfillRequest{Tenant: "t1", Group: "g", Start: end.Add(-60 * iv), End: end}); err != nil ||
		len(rep.Groups) != 1 || rep.Groups[0].Slots < 60 || rep.Groups[0].Slots > 61 {
		t.Errorf("one group: %+v %v", rep, err)
	}
	b.running["t1"] = true
	if _, err := b.Backfill(context.Background(), BackfillRequest{Tenant: "t1", Start: end, End: end}); !errors.Is(err, ErrBackfillRunning) {
		t.Errorf("overlapping run: %v", err)
	}
	off := NewBackfiller(backfillOptions(t, iv, ""), 0)
	if _, err := off.Backfill(context.Background(), BackfillRequest{Tenant: "t1", Start: end, End: end}); !errors.Is(err, ErrBackfillInvalid) {
		t.Errorf("without remote write: %v", err)
	}
}

// TestBackfillBatchesAndRetries: samples go in batches of at most 2000,
// each slot's samples at the slot, a failing receiver retried.
func TestBackfillBatchesAndRetries(t *testing.T) {
	capture, srv := newRemoteWriteCapture(t)
	iv := time.Second
	b := NewBackfiller(backfillOptions(t, iv, srv.URL+"/api/v1/write?extra_label=src=b"), 0)
	capture.fail.Store(2)
	end := time.Now().Add(-time.Minute)
	rep, err := b.Backfill(context.Background(), BackfillRequest{Tenant: "t1", Namespace: "ns", Group: "g", Start: end.Add(-1000 * iv), End: end})
	if err != nil {
		t.Fatal(err)
	}
	got := capture.of("b", "t1", 0, math.MaxInt64)
	off := SlotOffset("/rules", "t1", "ns", "g", iv)
	for _, s := range got {
		if (s.t*int64(time.Millisecond)-int64(off.Truncate(time.Millisecond)))%int64(iv) != 0 {
			t.Fatalf("sample off the group's slots: %v (offset %v)", s, off)
		}
	}
	// Three requests at least (2 failed, then > 2000 samples in two).
	if rep.Slots() < 1000 || rep.Slots() > 1001 || len(got) != rep.Samples || rep.Samples <= backfillBatch || rep.Requests < 4 || capture.fail.Load() >= 0 {
		t.Errorf("report %+v, %d samples received", rep, len(got))
	}
}
