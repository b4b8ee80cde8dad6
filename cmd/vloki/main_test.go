package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestBinaryServesDemoData builds vloki, runs it as `make run` does (embedded
// engine, demo feeder) on a free loopback port, queries the demo logs and
// stops it by PID, expecting a clean exit.
func TestBinaryServesDemoData(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "vloki")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	port := freePort(t)
	cmd := exec.Command(bin, "-demo", "-server.http-listen-address=127.0.0.1",
		fmt.Sprintf("-server.http-listen-port=%d", port), "-storage.path="+t.TempDir())
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	var streams int
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && streams == 0 {
		time.Sleep(500 * time.Millisecond)
		streams = countStreams(base)
	}
	if streams == 0 {
		t.Fatal("no demo streams served within 60s")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("vloki exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("vloki did not stop on SIGTERM")
	}
}

func countStreams(base string) int {
	q := url.Values{"query": {`{namespace=~"shop|edge"}`}, "limit": {"10"}, "since": {"5m"}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/loki/api/v1/query_range?"+q.Encode(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&body) != nil {
		return 0
	}
	return len(body.Data.Result)
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
