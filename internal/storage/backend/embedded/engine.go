// Package embedded runs VictoriaLogs inside the vloki process and exposes it
// as an http.RoundTripper, so the embedded engine and an external
// VictoriaLogs share one client code path.
package embedded

import (
	"flag"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/VictoriaMetrics/VictoriaLogs/app/vlinsert"
	"github.com/VictoriaMetrics/VictoriaLogs/app/vlinsert/insertutil"
	"github.com/VictoriaMetrics/VictoriaLogs/app/vlselect"
	"github.com/VictoriaMetrics/VictoriaLogs/app/vlstorage"
	"github.com/VictoriaMetrics/VictoriaMetrics/lib/logger"
)

// Config holds the few VictoriaLogs settings vloki controls.
type Config struct {
	// DataPath is the storage directory.
	DataPath string
	// Retention is a VictoriaLogs duration such as "7d" or "100y".
	Retention string
	// FutureRetention bounds how far in the future timestamps may be.
	FutureRetention string
	// LogLevel is VictoriaMetrics' logger level: INFO, WARN, ERROR, FATAL.
	LogLevel string
	// MaxRequestSize bounds one insert request, in bytes.
	MaxRequestSize int64
	// FlushInterval is -inmemoryDataFlushInterval (0: VictoriaLogs' 5s).
	FlushInterval time.Duration
}

// Engine is the running in-process VictoriaLogs.
type Engine struct {
	rt   http.RoundTripper
	gate *gate
}

var (
	mu      sync.Mutex
	running *Engine
)

// Start initialises VictoriaLogs. VictoriaLogs keeps global state, so only
// one engine can run per process; Start fails if one is running.
func Start(cfg Config) (*Engine, error) {
	mu.Lock()
	defer mu.Unlock()
	if running != nil {
		return nil, fmt.Errorf("embedded VictoriaLogs is already running in this process")
	}
	if err := setFlags(cfg); err != nil {
		return nil, err
	}
	logger.Init()
	vlstorage.Init()
	vlselect.Init()
	insertutil.SetLogRowsStorage(&vlstorage.Storage{})
	vlinsert.Init()
	g := newGate()
	running = &Engine{gate: g, rt: &transport{gate: g, handlers: []handlerFunc{
		vlinsert.RequestHandler, vlselect.RequestHandler, vlstorage.RequestHandler,
	}}}
	return running, nil
}

// setFlags sets VictoriaMetrics' own flags, which live on the global flag set
// and stay out of vloki's command line.
func setFlags(cfg Config) error {
	if err := parseGlobalFlags(); err != nil {
		return err
	}
	values := map[string]string{
		"storageDataPath":           cfg.DataPath,
		"retentionPeriod":           cfg.Retention,
		"futureRetention":           cfg.FutureRetention,
		"loggerLevel":               cfg.LogLevel,
		"loki.maxRequestSize":       fmt.Sprint(cfg.MaxRequestSize),
		"insert.maxLineSizeBytes":   fmt.Sprint(cfg.MaxRequestSize),
		"inmemoryDataFlushInterval": durationFlag(cfg.FlushInterval),
		// vloki sends lines verbatim; VictoriaLogs must not parse them.
		"loki.disableMessageParsing": "true",
		// LogsQL that vloki writes for a long LogQL query can pass
		// VictoriaLogs' default of 16 KiB (since v1.48).
		"search.maxQueryLen": "16MiB",
		// Loki's delete API runs on VictoriaLogs' delete tasks.
		"delete.enable": "true",
	}
	for name, v := range values {
		if v == "" || v == "0" {
			continue
		}
		if err := flag.Set(name, v); err != nil {
			return fmt.Errorf("embedded VictoriaLogs: setting -%s=%q: %w", name, v, err)
		}
	}
	return nil
}

func durationFlag(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return d.String()
}

// parseGlobalFlags parses an empty command line into the global flag set:
// VictoriaMetrics' packages refuse to run before it is parsed, and vloki
// parses its own flags on its own set.
func parseGlobalFlags() error {
	if flag.Parsed() {
		return nil
	}
	return flag.CommandLine.Parse(nil)
}

// RoundTripper returns the in-process transport to VictoriaLogs' HTTP API.
func (e *Engine) RoundTripper() http.RoundTripper { return e.rt }

// Stop ends the calls in progress, then flushes and closes the storage.
func (e *Engine) Stop() {
	mu.Lock()
	defer mu.Unlock()
	if running != e {
		return
	}
	e.gate.close()
	vlinsert.Stop()
	vlselect.Stop()
	vlstorage.Stop()
	running = nil
}
