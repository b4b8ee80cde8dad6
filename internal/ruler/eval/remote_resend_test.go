package eval

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/relabel"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/prompb"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/tsdb/record"
	"github.com/prometheus/prometheus/tsdb/wlog"
	"github.com/prometheus/prometheus/util/compression"
)

// receiver is a remote write receiver that can be down (503), or slow
// to answer (after noting what it received).
type receiver struct {
	mu    sync.Mutex
	down  bool
	delay time.Duration
	got   []received
}

type received struct {
	src, name string
	t         int64
	stale     bool
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	delay := r.delay
	defer time.Sleep(delay)
	defer r.mu.Unlock()
	if r.down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	b, _ := io.ReadAll(req.Body)
	raw, _ := snappy.Decode(nil, b)
	var wr prompb.WriteRequest
	if err := wr.Unmarshal(raw); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, ts := range wr.Timeseries {
		var name string
		for _, l := range ts.Labels {
			if l.Name == "__name__" {
				name = l.Value
			}
		}
		for _, s := range ts.Samples {
			r.got = append(r.got, received{src: req.URL.Query().Get("src"), name: name, t: s.Timestamp, stale: value.IsStaleNaN(s.Value)})
		}
	}
}

func (r *receiver) set(down bool, delay time.Duration) {
	r.mu.Lock()
	r.down, r.delay = down, delay
	r.mu.Unlock()
}

// samples are the timestamps src received for the series, in order.
func (r *receiver) samples(src, name string) []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int64
	for _, x := range r.got {
		if x.src == src && x.name == name {
			out = append(out, x.t)
		}
	}
	return out
}

func (r *receiver) stale(src, name string, t int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.got {
		if x.src == src && x.name == name && x.t == t {
			return x.stale
		}
	}
	return false
}

// waitSamples waits until ok holds. The bound is generous: on a machine
// busy with other work the queue's first send took over 10 s once.
func waitSamples(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not in 30s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func appendSamples(t *testing.T, w *walStorage, name string, ts ...int64) {
	t.Helper()
	app := w.Appender(context.Background())
	for _, x := range ts {
		v := 1.0
		if x < 0 { // a stale marker at −x
			x, v = -x, math.Float64frombits(value.StaleNaN)
		}
		if _, err := app.Append(0, labels.FromStrings("__name__", name), x, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := app.Commit(); err != nil {
		t.Fatal(err)
	}
}

// twoClients are client "plain" and client "relabel", whose
// write_relabel_configs drop series "b", both to rcv's URL, told apart
// by ?src=.
func twoClients(url, dir string) RemoteWrite {
	plain := rwConfig("", url+"?src=plain")
	relabeled := rwConfig("", url+"?src=relabel")
	relabeled.WriteRelabelConfigs = []*relabel.Config{{SourceLabels: model.LabelNames{"__name__"}, Regex: relabel.MustNewRegexp("b"),
		Action: relabel.Drop, Separator: ";", NameValidationScheme: model.UTF8Validation}}
	for _, c := range []*config.RemoteWriteConfig{plain, relabeled} {
		c.QueueConfig.BatchSendDeadline = model.Duration(50 * time.Millisecond)
		c.QueueConfig.MaxBackoff = model.Duration(100 * time.Millisecond)
		c.QueueConfig.MaxSamplesPerSend = 1
	}
	return RemoteWrite{Dir: dir, Clients: map[string]config.RemoteWriteConfig{"plain": *plain, "relabel": *relabeled}}
}

func openTestWAL(t *testing.T, rw RemoteWrite, reg *prometheus.Registry) *walStorage {
	t.Helper()
	w, err := openWAL(rw, "t1", newTenantRegisterer(reg, "loki_ruler_wal_", "tenant", "t1", quiet()),
		newTenantRegisterer(reg, "", "tenant", "t1", quiet()), quiet())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestRemoteWriteSurvivesRestart: samples the receiver did not take
// before a graceful stop (it was down) are sent after the restart, once
// each, stale markers included, per series in timestamp order and before
// the new run's samples; those it took are not sent again, nor anything
// at a third start. A client's write_relabel_configs apply to the resend.
// The stop does not wait for the receiver that is down.
func TestRemoteWriteSurvivesRestart(t *testing.T) {
	rcv := &receiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	rw := twoClients(srv.URL+"/api/v1/write", t.TempDir())
	base := time.Now().Add(time.Second).UnixMilli() // after the watcher's start
	at := func(i int) int64 { return base + int64(i)*1000 }

	w := openTestWAL(t, rw, prometheus.NewRegistry())
	appendSamples(t, w, "a", at(1), at(2))
	appendSamples(t, w, "b", at(1))
	waitSamples(t, "the first samples", func() bool {
		return len(rcv.samples("plain", "a")) == 2 && len(rcv.samples("plain", "b")) == 1 && len(rcv.samples("relabel", "a")) == 2
	})
	rcv.set(true, 0)
	appendSamples(t, w, "a", at(3), at(4), -at(5))
	appendSamples(t, w, "b", at(3))
	time.Sleep(300 * time.Millisecond) // the queues try and fail
	stopping := time.Now()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(stopping); took > 5*time.Second {
		t.Errorf("stopping with the receiver down took %v", took)
	}

	// Slow, one sample a request: the resend takes a while, the new
	// sample waits for it.
	rcv.set(false, 300*time.Millisecond)
	reg := prometheus.NewRegistry()
	w = openTestWAL(t, rw, reg)
	appendSamples(t, w, "a", max(at(6), time.Now().Add(time.Second).UnixMilli()))
	waitSamples(t, "the resent and the new samples", func() bool {
		return len(rcv.samples("plain", "a")) == 6 && len(rcv.samples("relabel", "a")) == 6 && len(rcv.samples("plain", "b")) == 2
	})
	time.Sleep(300 * time.Millisecond) // nothing more comes
	for _, src := range []string{"plain", "relabel"} {
		got := rcv.samples(src, "a")
		if len(got) != 6 || got[2] != at(3) || got[3] != at(4) || got[4] != at(5) {
			t.Errorf("%s received a at %v, want %d..%d then the new one", src, got, at(1), at(5))
		}
		for i := 1; i < len(got); i++ {
			if got[i] <= got[i-1] {
				t.Errorf("%s received a out of order: %v", src, got)
			}
		}
		if !rcv.stale(src, "a", at(5)) {
			t.Errorf("%s: the stale marker at %d was not resent as one", src, at(5))
		}
	}
	if got := rcv.samples("plain", "b"); len(got) != 2 || got[1] != at(3) {
		t.Errorf("plain received b at %v", got)
	}
	if got := rcv.samples("relabel", "b"); len(got) != 0 {
		t.Errorf("the relabel client's dropped series b was sent: %v", got)
	}
	const resent = "vloki_ruler_remote_write_resent_samples_total"
	if v := sample(t, reg, resent, `remote_name="t1-rw-plain"`); v != 4 {
		t.Errorf("%s{plain} = %v, want 4", resent, v)
	}
	if v := sample(t, reg, resent, `remote_name="t1-rw-relabel"`); v != 3 {
		t.Errorf("%s{relabel} = %v, want 3", resent, v)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	before := len(rcv.samples("plain", "a")) + len(rcv.samples("plain", "b")) + len(rcv.samples("relabel", "a"))
	w = openTestWAL(t, rw, prometheus.NewRegistry())
	time.Sleep(time.Second)
	if after := len(rcv.samples("plain", "a")) + len(rcv.samples("plain", "b")) + len(rcv.samples("relabel", "a")); after != before {
		t.Errorf("a third start sent %d samples again", after-before)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRemoteWriteSurvivesCrash: a run that never closes (its directory
// copied while it runs, as a crash leaves it) has its samples the
// receiver did not take sent by the next start; those taken before the
// last save of what was sent are not.
func TestRemoteWriteSurvivesCrash(t *testing.T) {
	rcv := &receiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	dir := t.TempDir()
	rw := RemoteWrite{URL: srv.URL + "/api/v1/write?src=one", Dir: dir, BatchSendDeadline: 50 * time.Millisecond}
	base := time.Now().Add(time.Second).UnixMilli()
	at := func(i int) int64 { return base + int64(i)*1000 }

	w := openTestWAL(t, rw, prometheus.NewRegistry())
	appendSamples(t, w, "a", at(1), at(2))
	waitSamples(t, "the first samples", func() bool { return len(rcv.samples("one", "a")) == 2 })
	if err := saveSentLogs(sentPath(w.dir), w.sent, time.Now(), false); err != nil { // the periodic save
		t.Fatal(err)
	}
	rcv.set(true, 0)
	appendSamples(t, w, "a", at(3), at(4))
	time.Sleep(200 * time.Millisecond)
	crashed := t.TempDir()
	copyDir(t, dir, crashed)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	rcv.set(false, 0)
	rw.Dir = crashed
	w = openTestWAL(t, rw, prometheus.NewRegistry())
	defer w.Close()
	waitSamples(t, "the samples left by the crash", func() bool { return len(rcv.samples("one", "a")) >= 4 })
	time.Sleep(300 * time.Millisecond)
	if got := rcv.samples("one", "a"); len(got) != 4 || got[2] != at(3) || got[3] != at(4) {
		t.Errorf("received a at %v, want %d %d %d %d", got, at(1), at(2), at(3), at(4))
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if strings.HasSuffix(path, "lock") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadWALCheckpoint: the resend reads the series and the samples the
// WAL's truncation moved into a checkpoint, then the segments after it
// up to the last one given.
func TestReadWALCheckpoint(t *testing.T) {
	dir := t.TempDir()
	wl, err := wlog.New(quiet(), nil, dir, compression.None)
	if err != nil {
		t.Fatal(err)
	}
	var enc record.Encoder
	logRecords := func(recs ...[]byte) {
		if err := wl.Log(recs...); err != nil {
			t.Fatal(err)
		}
	}
	logRecords(enc.Series([]record.RefSeries{{Ref: 1, Labels: labels.FromStrings("__name__", "a")}}, nil),
		enc.Samples([]record.RefSample{{Ref: 1, T: 10, V: 1}, {Ref: 1, T: 20, V: 1}}, nil))
	for _, ts := range [][]int64{{30}, {40}, {50}} {
		if _, err := wl.NextSegmentSync(); err != nil {
			t.Fatal(err)
		}
		logRecords(enc.Samples([]record.RefSample{{Ref: 1, T: ts[0], V: 1}}, nil))
	}
	// Segments 0 and 1 into checkpoint.00000001, samples from 20 kept.
	if _, err := wlog.Checkpoint(quiet(), wl, 0, 1, func(chunks.HeadSeriesRef) bool { return true }, 20, false); err != nil {
		t.Fatal(err)
	}
	if err := wl.Truncate(2); err != nil {
		t.Fatal(err)
	}
	if err := wl.Close(); err != nil {
		t.Fatal(err)
	}
	dec := record.NewDecoder(labels.NewSymbolTable(), quiet())
	var series []string
	var ts []int64
	err = readWAL(dir, 2, func(rec []byte) error {
		switch dec.Type(rec) {
		case record.Series:
			s, err := dec.Series(rec, nil)
			for _, x := range s {
				series = append(series, x.Labels.String())
			}
			return err
		case record.Samples:
			s, err := dec.Samples(rec, nil)
			for _, x := range s {
				ts = append(ts, x.T)
			}
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 1 || len(ts) != 3 || ts[0] != 20 || ts[1] != 30 || ts[2] != 40 {
		t.Errorf("series %v, samples %v; want a, 20 30 40 (50 is in a later segment)", series, ts)
	}
}
