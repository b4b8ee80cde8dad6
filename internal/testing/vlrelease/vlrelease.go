// Package vlrelease builds and runs the VictoriaLogs releases vloki
// supports, each from its own Go module: the external backends of the
// tests, the benchmarks and the load scripts. It also builds the
// VictoriaMetrics release the ruler's tests remote-write to.
package vlrelease

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Release is a VictoriaLogs release, built from its Go module.
type Release struct {
	// Name is VictoriaLogs' own version.
	Name string
	// Module and Version are the Go module holding app/victoria-logs.
	Module, Version string
	// Deletes: the release has delete tasks (v1.38+), started with
	// -delete.enable.
	Deletes bool
}

// Releases are the VictoriaLogs releases vloki supports, oldest first:
// v1.24.0, the last one inside the VictoriaMetrics module, and the newest
// the module proxy serves. (v1.39.0 is served too, but its module names a
// VictoriaMetrics pseudo-version the proxy refuses, so it cannot be built.)
var Releases = []Release{
	{Name: "v1.24.0", Module: "github.com/VictoriaMetrics/VictoriaMetrics", Version: "v1.121.0"},
	{Name: "v1.52.1", Module: "github.com/VictoriaMetrics/VictoriaLogs", Version: "v1.52.1", Deletes: true},
}

// Newest is the newest supported release, the one run where a single
// external process is needed.
func Newest() Release { return Releases[len(Releases)-1] }

// CacheDir is where built binaries are kept between runs.
func CacheDir() string {
	if d := os.Getenv("VLOKI_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "vloki")
	}
	return filepath.Join(os.TempDir(), "vloki-cache")
}

// Binary builds the newest release once and returns its path.
func Binary() (string, error) { return Newest().Binary() }

// Binary builds victoria-logs of the release once, in a module of its own
// under CacheDir, and returns its path.
func (r Release) Binary() (string, error) {
	return build("victoria-logs-"+r.Name, "victoria-logs", r.Module, r.Version)
}

// VictoriaMetricsVersion is the VictoriaMetrics single-node release the
// ruler's tests remote-write to: the module victoria-logs v1.24.0 is
// built from.
const VictoriaMetricsVersion = "v1.121.0"

// VictoriaMetrics builds victoria-metrics (single node) once, as Binary
// builds victoria-logs, and returns its path.
func VictoriaMetrics() (string, error) {
	return build("victoria-metrics-"+VictoriaMetricsVersion, "victoria-metrics", "github.com/VictoriaMetrics/VictoriaMetrics", VictoriaMetricsVersion)
}

// build makes module@version's app/<app> once, in <CacheDir>/<dirName>,
// and returns its path. A file lock keeps parallel test binaries from
// building it twice.
func build(dirName, app, module, version string) (string, error) {
	dir := filepath.Join(CacheDir(), dirName)
	bin := filepath.Join(dir, app)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	pkg := module + "/app/" + app
	if err := buildIn(dir, bin, pkg, version); err != nil {
		return "", fmt.Errorf("building %s@%s: %w", pkg, version, err)
	}
	return bin, nil
}

// buildIn makes bin in a scratch module that requires only pkg's module,
// so every release builds with the dependencies it was released with,
// whatever vloki's own go.mod pins.
func buildIn(dir, bin, pkg, version string) error {
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module vlbuild\n\ngo 1.26\n"), 0o644); err != nil {
		return err
	}
	tmp := bin + ".tmp"
	for _, args := range [][]string{{"get", pkg + "@" + version}, {"build", "-o", tmp, pkg}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %v\n%s", args[0], err, out)
		}
	}
	return os.Rename(tmp, bin)
}

// Process is a running victoria-logs.
type Process struct {
	URL  string
	cmd  *exec.Cmd
	args []string
}

// StartProcess starts the newest release on a free loopback port with a
// fresh data directory. Stop it with Stop.
func StartProcess(dataDir string, extraFlags ...string) (*Process, error) {
	return Newest().Start(dataDir, extraFlags...)
}

// Start starts the release on a free loopback port with a fresh data
// directory. Stop it with Stop.
func (r Release) Start(dataDir string, extraFlags ...string) (*Process, error) {
	bin, err := r.Binary()
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"-httpListenAddr=" + addr,
		"-storageDataPath=" + dataDir,
		"-retentionPeriod=100y",
		"-futureRetention=2d",
		"-loggerLevel=ERROR",
		"-loki.disableMessageParsing",
	}, extraFlags...)
	if r.Deletes {
		// A single node or a cluster's vlselect takes delete tasks; a
		// storage node carries them out.
		args = append(args, "-delete.enable", "-internaldelete.enable")
	}
	p := &Process{URL: "http://" + addr, args: append([]string{bin}, args...)}
	if err := p.Start(); err != nil {
		return nil, err
	}
	return p, nil
}

// Start starts the process again (after Stop) on the same address and
// data directory.
func (p *Process) Start() error {
	cmd := exec.Command(p.args[0], p.args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	p.cmd = cmd
	if err := waitHealthy(p.URL, 30*time.Second); err != nil {
		p.Stop()
		return err
	}
	return nil
}

// PID is the process id, for measuring the process (its RSS) from tests.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Stop ends the process by its PID and waits for it.
func (p *Process) Stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitHealthy(url string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("victoria-logs at %s not healthy after %s", url, limit)
}
