// Package vltest gives tests real VictoriaLogs backends: victoria-logs
// processes of every supported release, each built from its own module,
// and the embedded engine.
package vltest

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/backend/embedded"
	"github.com/vloki/vloki/internal/testing/vlrelease"
)

// Release is a supported VictoriaLogs release (see vlrelease).
type Release = vlrelease.Release

// Process is a running victoria-logs.
type Process = vlrelease.Process

// Releases are the supported releases, oldest first.
var Releases = vlrelease.Releases

// StartProcess starts the newest release on a free loopback port with a
// fresh data directory.
func StartProcess(dataDir string, extraFlags ...string) (*Process, error) {
	return vlrelease.StartProcess(dataDir, extraFlags...)
}

// Backend is one named VictoriaLogs client for table tests.
type Backend struct {
	Name   string
	Client *backend.Client
	// Flush, when set, replaces the client's force_flush (a cluster's
	// front has none).
	Flush func(context.Context) error
}

// Sync makes everything pushed so far to the backend searchable.
func (b Backend) Sync(t testing.TB) {
	t.Helper()
	if b.Flush == nil {
		Flush(t, b.Client)
		return
	}
	if err := b.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

var (
	embeddedOnce   sync.Once
	embeddedClient *backend.Client
	embeddedErr    error
	embeddedEngine *embedded.Engine
	embeddedDir    string
)

// Embedded returns a client of the process-wide embedded engine, started on
// first use with its data in a temporary directory.
func Embedded() (*backend.Client, error) {
	embeddedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vloki-embedded-*")
		if err != nil {
			embeddedErr = err
			return
		}
		eng, err := embedded.Start(embedded.Config{DataPath: dir, Retention: "100y", LogLevel: "ERROR"})
		if err != nil {
			embeddedErr = err
			return
		}
		embeddedEngine, embeddedDir = eng, dir
		embeddedClient, embeddedErr = backend.New("http://embedded", eng.RoundTripper(), backend.Options{Direct: eng})
	})
	return embeddedClient, embeddedErr
}

// Main runs a test binary's tests and then stops the embedded engine and
// removes its data: call it from TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	if embeddedEngine != nil {
		embeddedEngine.Stop()
		_ = os.RemoveAll(embeddedDir)
	}
	return code
}

// Both returns an external process of every supported release and the
// embedded engine, the processes stopped when the test ends.
func Both(t testing.TB) []Backend {
	t.Helper()
	emb, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var out []Backend
	for _, r := range Releases {
		out = append(out, External(t, r))
	}
	return append(out, Backend{Name: "embedded", Client: emb})
}

// External starts the release for the test, stopped with it, and returns
// a client of it named "external-<release>".
func External(t testing.TB, r Release) Backend {
	t.Helper()
	proc, err := r.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	c, err := backend.New(proc.URL, backend.NewHTTPTransport(), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Backend{Name: "external-" + r.Name, Client: c}
}

// IsExternal reports whether a backend name from Both is an external
// process's.
func IsExternal(name string) bool { return strings.HasPrefix(name, "external") }

// Flush makes everything pushed so far searchable.
func Flush(t testing.TB, c *backend.Client) {
	t.Helper()
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// EmbeddedViaHTTP is a client of the same embedded engine that sends every
// query through its HTTP handlers, to check the direct path against.
func EmbeddedViaHTTP() (*backend.Client, error) {
	if _, err := Embedded(); err != nil {
		return nil, err
	}
	return backend.New("http://embedded", embeddedEngine.RoundTripper(), backend.Options{})
}
