package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// instance is a vloki binary running on the embedded engine.
type instance struct {
	cmd  *exec.Cmd
	base string
	done chan error
}

func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "vloki")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func startInstance(t *testing.T, bin, dataDir string, extra ...string) *instance {
	t.Helper()
	port := freePort(t)
	args := append([]string{"-server.http-listen-address=127.0.0.1", fmt.Sprintf("-server.http-listen-port=%d", port),
		"-storage.path=" + dataDir, "-log.level=warn"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := &instance{cmd: cmd, base: fmt.Sprintf("http://127.0.0.1:%d", port), done: make(chan error, 1)}
	go func() { in.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(in.base + "/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return in
			}
		}
	}
	t.Fatal("vloki not ready within 30s")
	return nil
}

// push pushes one line and requires Loki's 204.
func (in *instance) push(t *testing.T, line string) {
	t.Helper()
	body := fmt.Sprintf(`{"streams":[{"stream":{"app":"life"},"values":[["%d",%q]]}]}`, time.Now().UnixNano(), line)
	resp, err := http.Post(in.base+"/loki/api/v1/push", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("push: %d", resp.StatusCode)
	}
}

// lines returns every line stored for the test's stream.
func (in *instance) lines(t *testing.T) string {
	t.Helper()
	q := url.Values{"query": {`{app="life"}`}, "limit": {"5000"}, "since": {"1h"}, "direction": {"forward"}}
	resp, err := http.Get(in.base + "/loki/api/v1/query_range?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func (in *instance) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-in.done:
		return err
	case <-time.After(60 * time.Second):
		t.Fatal("vloki did not exit")
		return nil
	}
}

// TestGracefulShutdownAndRestart: SIGTERM ends an open tail with a "going
// away" close frame, vloki exits cleanly, and every acknowledged push is
// there after a restart on the same data. A kill -9 loses nothing older
// than the flush window (2 × storage.flush_interval + 1 s).
func TestGracefulShutdownAndRestart(t *testing.T) {
	bin, data := buildBinary(t), t.TempDir()
	in := startInstance(t, bin, data, "-storage.flush-interval=1s")
	var want []string
	for i := range 20 {
		line := fmt.Sprintf("acknowledged %02d", i)
		in.push(t, line)
		want = append(want, line)
	}
	ws := "ws" + strings.TrimPrefix(in.base, "http") + "/loki/api/v1/tail?" + url.Values{"query": {`{app="life"}`}}.Encode()
	conn, _, err := websocket.DefaultDialer.Dial(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := in.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var closeErr *websocket.CloseError
	for {
		if _, _, err = conn.ReadMessage(); err != nil {
			break
		}
	}
	if !errors.As(err, &closeErr) || closeErr.Code != websocket.CloseGoingAway {
		t.Fatalf("tail ended with %v, want close code 1001", err)
	}
	if err := in.wait(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, "vloki-stream-index.json")); err != nil {
		t.Fatalf("no stream index saved on SIGTERM: %v", err)
	}

	in = startInstance(t, bin, data, "-storage.flush-interval=1s")
	requireLines(t, in.lines(t), want)
	// The restarted stream index answers the labels from memory at once.
	if body, fromMemory := in.appValues(t); body != `{"status":"success","data":["life"]}` || fromMemory != 1 {
		t.Errorf("after a restart: %s, %d from memory", body, fromMemory)
	}
	for i := range 20 {
		line := fmt.Sprintf("before kill %02d", i)
		in.push(t, line)
		want = append(want, line)
	}
	time.Sleep(4500 * time.Millisecond) // the flush window: 2 × 1 s + 1 s, and a margin
	_ = in.cmd.Process.Kill()
	_ = in.wait(t)
	in = startInstance(t, bin, data, "-storage.flush-interval=1s")
	requireLines(t, in.lines(t), want)
	// After a crash no index is restored: VictoriaLogs answers.
	if body, fromMemory := in.appValues(t); body != `{"status":"success","data":["life"]}` || fromMemory != 0 {
		t.Errorf("after a kill -9: %s, %d from memory", body, fromMemory)
	}
}

// appValues asks the values of app over the last hour, and how many
// label answers came from the stream index so far.
func (in *instance) appValues(t *testing.T) (string, int) {
	t.Helper()
	q := url.Values{"start": {fmt.Sprint(time.Now().Add(-time.Hour).UnixNano())}, "end": {fmt.Sprint(time.Now().UnixNano())}}
	body := get(t, in.base+"/loki/api/v1/label/app/values?"+q.Encode())
	m := regexp.MustCompile(`vloki_label_answers_total\{source="memory"\} (\d+)`).FindStringSubmatch(get(t, in.base+"/metrics"))
	n := 0
	if m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	return strings.TrimSpace(body), n
}

func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func requireLines(t *testing.T, body string, want []string) {
	t.Helper()
	var missing bytes.Buffer
	for _, l := range want {
		if !strings.Contains(body, `"`+l+`"`) {
			fmt.Fprintf(&missing, "%q ", l)
		}
	}
	if missing.Len() > 0 {
		t.Fatalf("lost after restart: %s", missing.String())
	}
}
