// Command vloki serves the Loki HTTP API from VictoriaLogs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/onewrite"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/tools/demo"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "vloki:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) > 0 && args[0] == "ready" {
		return checkReady(args[1:])
	}
	if len(args) > 0 && args[0] == "rules" {
		return runRules(args[1:], os.Stdout, os.Stderr)
	}
	cfg, err := config.Load(args, os.Stderr)
	if err != nil {
		return err
	}
	log, err := newLogger(cfg.Log)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	app, err := server.New(cfg, log)
	if err != nil {
		return err
	}
	defer app.Close()

	ln, err := net.Listen("tcp", cfg.ListenAddr())
	if err != nil {
		return err
	}
	log.Info("vloki listening", "address", ln.Addr().String(), "backend", app.BackendName())
	fmt.Fprintf(os.Stderr, "vloki is serving the Loki API at http://%s (backend: %s)\n", displayAddr(ln.Addr()), app.BackendName())

	if cfg.Server.PprofListenAddress != "" {
		go servePprof(cfg.Server.PprofListenAddress, log)
	}
	if cfg.Demo {
		go demo.Run(ctx, app.Ingester(), log)
	}
	srv := &http.Server{Handler: app.Handler(), ReadHeaderTimeout: 30 * time.Second}
	ln = onewrite.Install(srv, ln)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight", "grace", shutdownGrace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	app.BeginShutdown(shutdownCtx)
	return srv.Shutdown(shutdownCtx) // then app.Close flushes the storage
}

// shutdownGrace is how long in-flight requests may take to finish.
const shutdownGrace = 30 * time.Second

func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if ok && tcp.IP.IsUnspecified() {
		return fmt.Sprintf("localhost:%d", tcp.Port)
	}
	return a.String()
}

func newLogger(c config.Log) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.Level)); err != nil {
		return nil, fmt.Errorf("log.level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.Format {
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	case "logfmt", "":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	}
	return nil, fmt.Errorf("log.format %q: want logfmt or json", c.Format)
}

// servePprof serves Go's profiles on their own listener, never on the API's.
func servePprof(addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	log.Info("pprof listening", "address", addr)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		log.Error("pprof listener failed", "err", err)
	}
}
