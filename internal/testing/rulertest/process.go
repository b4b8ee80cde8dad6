// Package rulertest runs the real receivers of the ruler's outputs for
// tests: VictoriaMetrics (single node) taking remote write, and Debian's
// Alertmanager taking notifications and forwarding them to a webhook of
// the test's. Each listens on a free loopback port, logs into the test's
// temporary directory (printed when the test fails) and is stopped by
// its PID when the test ends.
package rulertest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// readyWithin bounds a start (a first VictoriaMetrics start also opens
// its storage).
const readyWithin = 30 * time.Second

// process is a server run by a test; it can be stopped and started again
// with the same arguments (same port, same data directory).
type process struct {
	name    string
	args    []string // the binary first
	ready   string   // a URL answering 200 once the server serves
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{}
}

func newProcess(t testing.TB, name, ready string, args []string) *process {
	p := &process{name: name, args: args, ready: ready, logPath: filepath.Join(t.TempDir(), name+".log")}
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("%s log (%s):\n%s", name, p.logPath, tail(p.logPath, 16<<10))
		}
	})
	return p
}

// start runs the process and waits until it is ready.
func (p *process) start() error {
	log, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.args[0], p.args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); log.Close(); close(exited) }()
	p.cmd, p.exited = cmd, exited
	return p.waitReady()
}

func (p *process) waitReady() error {
	deadline := time.Now().Add(readyWithin)
	for {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited before it was ready: %s", p.name, p.cmd.ProcessState)
		default:
		}
		if resp, err := http.Get(p.ready); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			p.stop()
			return fmt.Errorf("%s not ready at %s after %s", p.name, p.ready, readyWithin)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends the process by its PID (SIGTERM, SIGKILL after 20s) and
// waits for it; a stopped process is left alone.
func (p *process) stop() {
	if p.cmd == nil {
		return
	}
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// freeAddr is a loopback address no one listens on (just now).
func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// tail is the end of a file, at most n bytes.
func tail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, 0)
	}
	b, _ := io.ReadAll(io.LimitReader(f, n))
	return string(b)
}

// WaitFor polls cond every 100ms until it holds, failing the test with
// what after limit.
func WaitFor(t testing.TB, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
