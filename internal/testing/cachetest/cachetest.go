// Package cachetest starts real memcached and redis-server processes for
// tests, on free loopback ports, and stops them by PID. The binaries come
// from Debian's packages (scripts/test-deps.sh installs them): a missing
// one fails the test, never skips it.
package cachetest

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Memcached starts memcached and returns its host:port.
func Memcached(t testing.TB) string {
	t.Helper()
	return start(t, "memcached", func(port int) []string {
		return []string{"-l", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "0", "-m", "64", "-u", "root"}
	})
}

// Redis starts redis-server and returns its host:port.
func Redis(t testing.TB) string {
	t.Helper()
	return start(t, "redis-server", func(port int) []string {
		return []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no"}
	})
}

func start(t testing.TB, name string, args func(port int) []string) string {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed: run scripts/test-deps.sh (make test does)", name)
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args(port)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
	}
	t.Fatalf("%s did not listen on %s", name, addr)
	return ""
}

// FreePort is a free loopback TCP port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
