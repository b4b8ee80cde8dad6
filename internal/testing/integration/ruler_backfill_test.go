package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/value"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/ruler/eval"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// writtenSample is one remote-written sample: series, time (ms) and the
// value's bits, so that a stale marker is told from another NaN.
type writtenSample struct {
	Series string
	T      int64
	Bits   uint64
}

func (s writtenSample) stale() bool { return value.IsStaleNaN(math.Float64frombits(s.Bits)) }

func (s writtenSample) String() string {
	v := "stale"
	if !s.stale() {
		v = strconv.FormatFloat(math.Float64frombits(s.Bits), 'g', -1, 64)
	}
	return fmt.Sprintf("%s@%s=%s", s.Series, time.UnixMilli(s.T).UTC().Format("15:04:05.000"), v)
}

// sampleSource is where the tests read remote-written samples back: the
// in-test receiver below, or a real receiver (VictoriaMetrics' export)
// once the harness has one. Samples are kept apart by src, as
// VictoriaMetrics' ?extra_label=src=<src> does, and by tenant.
type sampleSource interface {
	// writeURL is the remote write URL for src.
	writeURL(src string) string
	// samples is what src wrote for tenant, from..to (ms, included),
	// ordered by time then series.
	samples(src, tenant string, from, to int64) []writtenSample
}

// inTestRemoteWriteReceiver is a remote write v1 receiver inside the
// test (snappy protobuf decoded as a real receiver decodes it).
type inTestRemoteWriteReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got map[string][]writtenSample // "<src>/<tenant>"
}

func newInTestRemoteWriteReceiver(t *testing.T) *inTestRemoteWriteReceiver {
	r := &inTestRemoteWriteReceiver{got: map[string][]writtenSample{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.write))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *inTestRemoteWriteReceiver) write(w http.ResponseWriter, req *http.Request) {
	wr, _, ok := readRemoteWrite(w, req)
	if !ok {
		return
	}
	key := strings.TrimPrefix(req.URL.Query().Get("extra_label"), "src=") + "/" + req.Header.Get("X-Scope-OrgID")
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ts := range wr.Timeseries {
		var ls []string
		for _, l := range ts.Labels {
			ls = append(ls, l.Name+"="+l.Value)
		}
		for _, s := range ts.Samples {
			r.got[key] = append(r.got[key], writtenSample{strings.Join(ls, ","), s.Timestamp, math.Float64bits(s.Value)})
		}
	}
}

func (r *inTestRemoteWriteReceiver) writeURL(src string) string {
	return r.srv.URL + "/api/v1/write?extra_label=src=" + src
}

func (r *inTestRemoteWriteReceiver) samples(src, tenant string, from, to int64) []writtenSample {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []writtenSample
	for _, s := range r.got[src+"/"+tenant] {
		if s.T >= from && s.T <= to {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b writtenSample) int {
		if a.T != b.T {
			return int(a.T - b.T)
		}
		return strings.Compare(a.Series, b.Series)
	})
	return out
}

// serveApp is serve with the app closed at the end (or earlier by the
// returned stop, e.g. to stop its evaluations).
func serveApp(t *testing.T, cfg config.Config, c *backend.Client, name string) (target, func()) {
	t.Helper()
	app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), c, name, func() {})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(app.Handler())
	var once sync.Once
	stop := func() { once.Do(func() { srv.Close(); app.Close() }) }
	t.Cleanup(stop)
	return target{name: name, url: srv.URL, vl: c}, stop
}

// rulerConfig is vloki with auth, evaluating every second over dir, its
// own files (alert state, …) in a directory of the test's.
func rulerConfig(t *testing.T, dir string, change func(*config.Ruler)) config.Config {
	cfg := config.Default()
	cfg.Storage.Path = t.TempDir()
	cfg.Auth.Enabled = true
	cfg.Ruler.Storage.Local.Directory = dir
	cfg.Ruler.EvaluationInterval = time.Second
	cfg.Ruler.PollInterval = time.Second
	change(&cfg.Ruler)
	return cfg
}

const backfillRules = `name: rec
rules:
  - record: heartbeat
    expr: vector(1)
  - record: app:lines:count1s
    expr: sum by (app) (count_over_time({app=~"a|b", run="%[1]s"}[1s]))
    labels:
      team: t
  - record: app:renamed
    expr: sum by (app) (count_over_time({app="a", run="%[1]s"}[1s]))
    labels:
      app: renamed
  - alert: Lines
    expr: sum(count_over_time({run="%[1]s"}[1s])) > 0
`

const backfillLimited = `name: limited
limit: 1
rules:
  - record: heartbeat:limited
    expr: vector(1)
  - record: app:limited
    expr: sum by (app) (count_over_time({app=~"a|b", run="%[1]s"}[1s]))
`

// TestRulerBackfillMatchesLiveEvaluation: a vloki evaluates two groups
// live into the receiver (src=live); a second vloki on the same backend
// and rule directory, not evaluating, backfills a range live evaluation
// covered (src=backfill): the same series, timestamps and values, stale
// markers included; alerting rules are left out.
func TestRulerBackfillMatchesLiveEvaluation(t *testing.T) {
	rw := newInTestRemoteWriteReceiver(t)
	for _, b := range vltest.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			live, stopLive := serveApp(t, rulerConfig(t, dir, func(r *config.Ruler) {
				r.RemoteWrite.Enabled, r.RemoteWrite.URL, r.WAL.Dir = true, rw.writeURL("live"), t.TempDir()
			}), b.Client, b.Name)
			bf, _ := serveApp(t, rulerConfig(t, dir, func(r *config.Ruler) {
				r.EnableEvaluation = false
				r.RemoteWrite.Enabled, r.RemoteWrite.URL = true, rw.writeURL("backfill")
			}), b.Client, b.Name)
			checkBackfillMatchesLive(t, live, bf, stopLive, rw, "bf-"+strings.NewReplacer(".", "", "-", "").Replace(b.Name))
		})
	}
}

func checkBackfillMatchesLive(t *testing.T, live, bf target, stopLive func(), src sampleSource, ten string) {
	// Data relative to the group's slots, all in the (near) future, so
	// that live evaluation sees it slot by slot: a in slots G1+1..G1+6,
	// b in G1 and G1+4 only (each 1s window is (slot-1s, slot]).
	iv := time.Second
	off := eval.SlotOffset("/rules", ten, "ns", "rec", iv)
	g1 := time.Now().Add(7 * time.Second).Truncate(iv).Add(off)
	at := func(d float64) entry { return entry{ns(g1.Add(time.Duration(d * float64(time.Second)))), "line"} }
	var as []entry
	for k := range 22 {
		as = append(as, at(0.125+0.25*float64(k)))
	}
	run := ten
	live.pushJSON(t, ten, jsonPush(map[string]string{"app": "a", "run": run}, as...))
	live.pushJSON(t, ten, jsonPush(map[string]string{"app": "b", "run": run}, at(-0.375), at(3.125), at(3.625)))
	// A query of the tenant's waits until its pushes are searchable, so
	// that no evaluation waits (and misses its next slot) for them.
	if r := live.get(t, "/loki/api/v1/query", ten, url.Values{"query": {`count_over_time({run="` + run + `"}[1m])`}}, nil); r.status != 200 {
		t.Fatalf("query: %d %s", r.status, r.body)
	}
	expectAnswer(t, "create rec", live.rulerDo(t, "POST", "/loki/api/v1/rules/ns", ten, fmt.Sprintf(backfillRules, run)), 202, appJSON, accepted)
	expectAnswer(t, "create limited", live.rulerDo(t, "POST", "/loki/api/v1/rules/ns", ten, fmt.Sprintf(backfillLimited, run)), 202, appJSON, accepted)
	if time.Until(g1) < 2*iv {
		t.Fatalf("setup took too long: live evaluation may not have started before the data")
	}

	// Compared: G1+1..G1+8 (G1+1 marks b stale, from what G1 saw).
	from, to := g1.Add(iv), g1.Add(8*iv)
	heartbeats := map[string]bool{"__name__=heartbeat": true, "__name__=heartbeat:limited": true}
	for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		after := map[string]bool{}
		for _, s := range src.samples("live", ten, to.UnixMilli()+1, math.MaxInt64) {
			after[s.Series] = heartbeats[s.Series]
		}
		if after["__name__=heartbeat"] && after["__name__=heartbeat:limited"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("live evaluation not remote-written past the range")
		}
	}
	stopLive() // flushes what the WAL holds
	lo, hi := from.UnixMilli(), to.UnixMilli()
	want := slices.DeleteFunc(src.samples("live", ten, lo-iv.Milliseconds(), hi), func(s writtenSample) bool {
		return strings.HasPrefix(s.Series, "__name__=ALERTS")
	})
	checkSlotsContiguous(t, want, heartbeats, lo-iv.Milliseconds(), hi, iv)

	r := bf.rulerDo(t, "POST", "/ruler/backfill?"+url.Values{"start": {from.Format(time.RFC3339Nano)}, "end": {to.Format(time.RFC3339Nano)}}.Encode(), ten, "")
	if r.status != 200 || r.header.Get("Content-Type") != appJSON {
		t.Fatalf("backfill: %d %s", r.status, r.body)
	}
	var rep struct {
		Status string              `json:"status"`
		Data   eval.BackfillReport `json:"data"`
	}
	if err := json.Unmarshal(r.body, &rep); err != nil {
		t.Fatal(err)
	}
	got := src.samples("backfill", ten, 0, math.MaxInt64)
	want = slices.DeleteFunc(want, func(s writtenSample) bool { return s.T < lo })
	if !slices.Equal(want, got) {
		t.Errorf("backfill differs from live evaluation\nlive:     %v\nbackfill: %v", want, got)
	}
	// What both should hold: the rule labels, the stale markers.
	for _, w := range []string{"__name__=app:lines:count1s,app=b,team=t@1=stale", "__name__=app:lines:count1s,app=b,team=t@4=2",
		"__name__=app:lines:count1s,app=b,team=t@5=stale", "__name__=app:lines:count1s,app=a,team=t@6=2",
		"__name__=app:lines:count1s,app=a,team=t@7=stale", "__name__=app:renamed,app=renamed@3=4", "__name__=heartbeat@8=1"} {
		series, rest, _ := strings.Cut(w, "@")
		k, v, _ := strings.Cut(rest, "=")
		n, _ := strconv.Atoi(k)
		s := writtenSample{Series: series, T: g1.Add(time.Duration(n) * iv).UnixMilli()}
		if v == "stale" {
			s.Bits = value.StaleNaN
		} else {
			f, _ := strconv.ParseFloat(v, 64)
			s.Bits = math.Float64bits(f)
		}
		if !slices.Contains(got, s) {
			t.Errorf("backfill lacks %v", s)
		}
	}
	stale := 0
	for _, s := range got {
		if s.stale() {
			stale++
		}
	}
	d := rep.Data
	groups := map[string]eval.BackfillGroup{}
	for _, g := range d.Groups {
		groups[g.Name] = g
	}
	rec, limited := groups["rec"], groups["limited"]
	if rep.Status != "success" || d.Samples != len(got) || d.StaleMarkers != stale || len(d.Groups) != 2 ||
		rec.Slots != 8 || rec.SkippedAlertingRules != 1 || rec.FailedEvaluations != 0 ||
		limited.FailedEvaluations == 0 || limited.LastError != "exceeded limit of 1 with 2 series" {
		t.Errorf("report: %s", r.body)
	}

	// Refusals: Loki-style JSON errors.
	for _, c := range []struct {
		method, query string
		status        int
		text          string
	}{
		{"POST", "start=" + strconv.FormatInt(time.Now().Unix(), 10) + "&end=" + strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10), 400, "invalid backfill: end is in the future"},
		{"POST", "start=1700000000&end=1700000060&group=none", 404, "no rule groups found"},
		{"POST", "start=yesterday&end=1700000060", 400, "invalid start"},
	} {
		r := bf.rulerDo(t, c.method, "/ruler/backfill?"+c.query, ten, "")
		if r.status != c.status || !strings.Contains(string(r.body), c.text) {
			t.Errorf("%s %s: %d %s", c.method, c.query, r.status, r.body)
		}
	}
	if r := bf.rulerDo(t, "GET", "/ruler/backfill", ten, ""); r.status != 405 {
		t.Errorf("GET: %d", r.status)
	}
}

// checkSlotsContiguous fails the test when live evaluation missed a slot
// of a group in from..to (what follows a missed slot differs, as it
// should, from a backfill).
func checkSlotsContiguous(t *testing.T, samples []writtenSample, heartbeats map[string]bool, from, to int64, iv time.Duration) {
	t.Helper()
	seen := map[string][]int64{}
	for _, s := range samples {
		if heartbeats[s.Series] {
			seen[s.Series] = append(seen[s.Series], s.T)
		}
	}
	for hb := range heartbeats {
		ts := seen[hb]
		if len(ts) == 0 || ts[0]-from >= iv.Milliseconds() || to-ts[len(ts)-1] >= iv.Milliseconds() {
			t.Fatalf("live evaluation of %s did not cover the range %d..%d: %v", hb, from, to, ts)
		}
		for i := 1; i < len(ts); i++ {
			if ts[i]-ts[i-1] != iv.Milliseconds() {
				t.Fatalf("live evaluation missed a slot of %s: %v", hb, ts)
			}
		}
	}
}
