package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/vloki/vloki/internal/tools/canary"
)

// runCanary runs vloki's own end-to-end checker (internal/tools/canary) against
// a server, with loki-canary's flags, prints its figures as JSON and,
// with -compare, fails when they are worse than a record of loki-canary's
// (internal/testing/integration/testdata/canary_loki.json).
func runCanary(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("canary", flag.ContinueOnError)
	cfg := canary.Defaults()
	port := 0
	cfg.Bind(fs, &port)
	compare := fs.String("compare", "", "JSON with loki-canary's figures under \"counters\": exit 1 when the run did worse")
	quiet := fs.Bool("quiet", false, "do not print findings as they happen")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !*quiet {
		cfg.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
	var ref struct{ Counters map[string]float64 }
	if *compare != "" {
		b, err := os.ReadFile(*compare)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &ref); err != nil {
			return fmt.Errorf("%s: %w", *compare, err)
		}
	}
	k, err := canary.New(cfg)
	if err != nil {
		return err
	}
	if port > 0 {
		reg := prometheus.NewRegistry()
		reg.MustRegister(k.Collector())
		ln, err := net.Listen("tcp", net.JoinHostPort("localhost", strconv.Itoa(port)))
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
	}
	r, err := k.Run(ctx)
	if err != nil {
		return err
	}
	out, _ := json.MarshalIndent(map[string]any{"seconds": r.Seconds, "counters": r.Counters()}, "", "  ")
	fmt.Println(string(out))
	if *compare != "" {
		if p := r.Beyond(ref.Counters); len(p) > 0 {
			return errors.New("worse than " + *compare + ":\n  " + strings.Join(p, "\n  "))
		}
	}
	return nil
}
