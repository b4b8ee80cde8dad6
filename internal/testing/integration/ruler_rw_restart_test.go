package integration

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/ruler/eval"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/testing/rulertest"
	"github.com/vloki/vloki/internal/testing/vltest"
)

const restartGroup = `name: restart
interval: 1s
rules:
  - record: restart:one
    expr: vector(1)
`

// TestRulerRemoteWriteSurvivesRestart: samples a vloki could not send
// before it stopped (the receiver was down) are sent by the next vloki
// over the same WAL, once each, whether the stop was graceful (SIGTERM)
// or abrupt (SIGKILL, nothing closed). vloki runs as a child process (this
// test binary, TestRulerNode) so that it can be killed. A recording rule
// evaluates every second: VictoriaMetrics is stopped, run A evaluates a
// few slots more and stops gracefully, run B evaluates a few and is
// killed, VictoriaMetrics starts again and run C starts. Every slot a run
// evaluated has exactly one sample; no slot has two.
func TestRulerRemoteWriteSurvivesRestart(t *testing.T) {
	t.Parallel()
	const tenant, interval = "rw-restart", time.Second
	vm := rulertest.StartVictoriaMetrics(t)
	dirs := nodeDirs{rules: t.TempDir(), wal: t.TempDir(), storage: t.TempDir(), tmp: t.TempDir(), rw: vm.WriteURL("restart")}

	a := startNode(t, dirs)
	expectAnswer(t, "create", a.tg.rulerDo(t, "POST", "/loki/api/v1/rules/ns", tenant, restartGroup), 202, appJSON, accepted)
	exported := func() rulertest.Series {
		got := vm.Export(t, `restart:one{src="restart"}`)
		if len(got) != 1 {
			return rulertest.Series{}
		}
		return got[0]
	}
	rulertest.WaitFor(t, "first samples in VictoriaMetrics", 30*time.Second, func() bool { return len(exported().Timestamps) >= 3 })
	vm.Stop()
	time.Sleep(4 * interval) // these slots wait in the WAL
	a.stop(t, syscall.SIGTERM)

	b := startNode(t, dirs)
	time.Sleep(5 * interval)
	b.stop(t, syscall.SIGKILL)

	vm.Start(t)
	c := startNode(t, dirs)
	rulertest.WaitFor(t, "samples of the last run", 30*time.Second, func() bool {
		ts := exported().Timestamps
		return len(ts) > 0 && ts[len(ts)-1] > c.ready.Add(3*interval).UnixMilli()
	})

	s := exported()
	step, offset := interval.Milliseconds(), eval.SlotOffset("/rules", tenant, "ns", "restart", interval).Milliseconds()
	samples := map[int64]int{}
	for _, ts := range s.Timestamps {
		samples[ts]++
		if ts%step != offset {
			t.Errorf("sample at %d, not a slot (offset %dms)", ts, offset)
		}
	}
	for ts, n := range samples {
		if n != 1 {
			t.Errorf("slot %d: %d samples", ts, n)
		}
	}
	// Every slot well within a run was evaluated, so has its sample: the
	// first run's after the first sample, the others' a moment after
	// they served.
	first := s.Timestamps[0]
	for _, run := range []struct {
		name       string
		from, till int64
	}{
		{"A", first, a.stopped.Add(-700 * time.Millisecond).UnixMilli()},
		{"B", b.ready.Add(2 * time.Second).UnixMilli(), b.stopped.Add(-700 * time.Millisecond).UnixMilli()},
		{"C", c.ready.Add(2 * time.Second).UnixMilli(), s.Timestamps[len(s.Timestamps)-1]},
	} {
		for slot := run.from - (run.from-offset)%step + step; slot <= run.till; slot += step {
			if samples[slot] != 1 {
				t.Errorf("run %s, slot %d (%s): %d samples", run.name, slot, time.UnixMilli(slot).UTC().Format("15:04:05.000"), samples[slot])
			}
		}
	}
	m := c.tg.metrics(t)
	if m.sum("vloki_ruler_remote_write_resent_samples_total", tenant) < 4 {
		t.Errorf("vloki_ruler_remote_write_resent_samples_total{tenant=%q} = %v, want the 7 or so slots left by A and B",
			tenant, m.sum("vloki_ruler_remote_write_resent_samples_total", tenant))
	}
	t.Logf("%d samples from %s to %s; A stopped %s, B served %s to %s, C served %s", len(s.Timestamps),
		time.UnixMilli(first).UTC().Format("15:04:05.000"), time.UnixMilli(s.Timestamps[len(s.Timestamps)-1]).UTC().Format("15:04:05.000"),
		a.stopped.UTC().Format("15:04:05.000"), b.ready.UTC().Format("15:04:05.000"), b.stopped.UTC().Format("15:04:05.000"),
		c.ready.UTC().Format("15:04:05.000"))
	c.stop(t, syscall.SIGTERM)
}

// nodeDirs are what a vloki child keeps across runs, and where its
// samples go.
type nodeDirs struct {
	rules, wal, storage, tmp, rw string
}

// node is vloki running as a child process.
type node struct {
	cmd     *exec.Cmd
	tg      target
	log     string
	ready   time.Time
	stopped time.Time
	exited  chan struct{}
}

// Environment of the child (TestRulerNode).
const (
	nodeEnv        = "VLOKI_TEST_RULER_NODE"
	nodeRulesEnv   = "VLOKI_TEST_RULER_NODE_RULES"
	nodeWALEnv     = "VLOKI_TEST_RULER_NODE_WAL"
	nodeStorageEnv = "VLOKI_TEST_RULER_NODE_STORAGE"
	nodeRWEnv      = "VLOKI_TEST_RULER_NODE_RW"
)

func startNode(t *testing.T, dirs nodeDirs) *node {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	n := &node{log: filepath.Join(t.TempDir(), "vloki.log"), exited: make(chan struct{}), tg: target{name: "child", url: "http://" + addr}}
	logFile, err := os.Create(n.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	n.cmd = exec.Command(os.Args[0], "-test.run=^TestRulerNode$", "-test.count=1")
	n.cmd.Stdout, n.cmd.Stderr = logFile, logFile
	n.cmd.Env = append(os.Environ(), nodeEnv+"="+addr, nodeRulesEnv+"="+dirs.rules, nodeWALEnv+"="+dirs.wal,
		nodeStorageEnv+"="+dirs.storage, nodeRWEnv+"="+dirs.rw, "TMPDIR="+dirs.tmp)
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = n.cmd.Wait()
		close(n.exited)
	}()
	t.Cleanup(func() {
		n.stop(t, syscall.SIGKILL)
		if t.Failed() {
			b, _ := os.ReadFile(n.log)
			t.Logf("vloki child log (%s):\n%s", n.log, b)
		}
	})
	rulertest.WaitFor(t, "the vloki child serving", 60*time.Second, func() bool {
		resp, err := http.Get(n.tg.url + "/ready")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	})
	n.ready = time.Now()
	return n
}

// stop signals the child (by its PID) and waits for it to end.
func (n *node) stop(t *testing.T, sig syscall.Signal) {
	select {
	case <-n.exited:
		return
	default:
	}
	n.stopped = time.Now()
	_ = n.cmd.Process.Signal(sig)
	select {
	case <-n.exited:
	case <-time.After(30 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.exited
		t.Errorf("vloki child: no exit within 30s of %v", sig)
	}
}

// TestRulerNode is the child of TestRulerRemoteWriteSurvivesRestart: a
// vloki with the ruler over the embedded backend, serving until SIGTERM
// (then closed as the binary closes it) or SIGKILL. Without its
// environment it does nothing.
func TestRulerNode(t *testing.T) {
	addr := os.Getenv(nodeEnv)
	if addr == "" {
		t.Skip("the child of TestRulerRemoteWriteSurvivesRestart")
	}
	emb, err := vltest.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Auth.Enabled = true
	cfg.Storage.Path = os.Getenv(nodeStorageEnv)
	cfg.Ruler.Storage.Local.Directory, cfg.Ruler.EnableEvaluation = os.Getenv(nodeRulesEnv), true
	cfg.Ruler.RemoteWrite.Enabled, cfg.Ruler.RemoteWrite.URL, cfg.Ruler.WAL.Dir = true, os.Getenv(nodeRWEnv), os.Getenv(nodeWALEnv)
	cfg.Ruler.AlertStateDir = filepath.Join(cfg.Storage.Path, "ruler-state")
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(os.Stderr, nil)), metrics.New(), emb, "embedded", func() {})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Addr: addr, Handler: app.Handler()}
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe() }()
	select {
	case <-sigs:
	case err := <-served:
		t.Fatal(fmt.Errorf("serving: %w", err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	app.BeginShutdown(ctx)
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		t.Error(err)
	}
	app.Close()
}
