package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/tools/bench"
	"github.com/vloki/vloki/internal/tools/bench/scaledata"
	"github.com/vloki/vloki/internal/tools/bench/scaleingest"
)

// scale generates the Quickwit-shaped dataset (or its 25,600-stream
// variant), pushes it into each target alone — vloki through Loki's push
// API, VictoriaLogs (a twins target) through its jsonline endpoint — then
// times the scale workloads against all of them.
func scale(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	var c common
	c.bind(fs)
	lines := fs.Int("lines", 30_000_000, "lines of the dataset")
	days := fs.Float64("days", 30, "days of logs ending at -now")
	hosts := fs.Bool("hosts", false, "the high-cardinality variant: a bucketed_hostname label, 25,600 streams")
	seed := fs.Uint64("seed", 1, "the dataset's seed")
	pushers := fs.Int("pushers", 4, "concurrent pushers")
	batch := fs.Int("batch", 1000, "lines a push")
	skipIngest := fs.Bool("skip-ingest", false, "query data already ingested")
	ingestOnly := fs.Bool("ingest-only", false, "only ingest and count back: no query steps")
	via := fs.String("via", "proto", "how vloki and Loki targets are pushed to: proto (Loki's protobuf+snappy), json (Loki's JSON) or otlp (OTLP/HTTP protobuf+gzip)")
	workloads := fs.String("workloads", "", "comma-separated workload names (default: all of the dataset's)")
	clients := fs.String("clients", "1,10", "closed-loop client counts")
	duration := fs.Duration("duration", 10*time.Second, "length of each step")
	timeout := fs.Duration("timeout", 5*time.Minute, "timeout of one request")
	out := fs.String("out", "bench-results/scale", "directory for report.md and report.json")
	render := fs.String("render", "", "only print the Markdown of this report.json again")
	verifyTarget := fs.String("verify", "vloki", "target whose answers are checked against -reference")
	reference := fs.String("reference", "loki", "target they must equal (skipped when absent)")
	ingestClients := fs.Int("ingest-clients", 0, "closed-loop clients querying each target while it ingests (0: none)")
	ingestWorkloads := fs.String("ingest-workloads", "", "comma-separated workloads those clients cycle (default: a region's (a host's) logs and volume panels)")
	window := fs.String("window", "fixed", "where each request's window sits, as in run: fixed (ending at the dataset's end), shifted (moved back by a seeded random 0–2h: windows never asked twice, as refreshing dashboards), now, grafana")
	windowSeed := fs.Uint64("window-seed", 1, "seed of the shifted mode's shifts")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *render != "" {
		return rerender(*render)
	}
	format, err := scaleingest.ParseFormat(*via)
	if err != nil {
		return err
	}
	mode, err := bench.ParseWindowMode(*window)
	if err != nil {
		return err
	}
	now := c.now.t
	if now.IsZero() { // -skip-ingest needs the -now of the run that ingested
		now = time.Now().Truncate(time.Second)
	}
	data := scaledata.Config{Now: now, Days: *days, Lines: *lines, Hosts: *hosts, Seed: *seed}
	cfg := bench.ScaleConfig{Data: data, Targets: c.targets.list, SkipIngest: *skipIngest, Progress: os.Stderr,
		Ingest: scaleingest.Options{Pushers: *pushers, BatchLines: *batch}, Verify: *verifyTarget, Reference: *reference,
		Via: format, IngestOnly: *ingestOnly, Window: bench.Window{Mode: mode, Seed: *windowSeed}}
	d := scaledata.New(data)
	if cfg.Workloads, err = pickScaleWorkloads(d, *workloads); err != nil {
		return err
	}
	if *ingestClients > 0 {
		names := *ingestWorkloads
		if names == "" {
			names = strings.Join(bench.IngestWorkloads(d), ",")
		}
		if cfg.IngestWorkloads, err = pickScaleWorkloads(d, names); err != nil {
			return err
		}
		cfg.IngestLoad = bench.Load{Clients: *ingestClients, Timeout: *timeout}
	}
	if cfg.Loads, err = loads(*clients, 0, *duration, *timeout); err != nil {
		return err
	}
	rep, err := bench.Scale(ctx, cfg)
	if rep != nil {
		if werr := write(*out, rep); werr != nil {
			return werr
		}
		fmt.Print(rep.Markdown())
	}
	return err
}

func pickScaleWorkloads(d *scaledata.Dataset, names string) ([]bench.Workload, error) {
	all := bench.ScaleWorkloads(d)
	if names == "" {
		return all, nil
	}
	var out []bench.Workload
	for _, n := range strings.Split(names, ",") {
		i := indexOf(all, strings.TrimSpace(n))
		if i < 0 {
			return nil, fmt.Errorf("unknown scale workload %q", n)
		}
		out = append(out, all[i])
	}
	return out, nil
}

func indexOf(ws []bench.Workload, name string) int {
	for i, w := range ws {
		if w.Name == name {
			return i
		}
	}
	return -1
}

// rerender prints a stored report's Markdown with today's layout; the
// queries are rebuilt from its dataset's configuration.
func rerender(path string) error {
	js, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rep bench.ScaleReport
	if err := json.Unmarshal(js, &rep); err != nil {
		return err
	}
	rep.Workloads = bench.ScaleWorkloads(scaledata.New(rep.Dataset))
	fmt.Print(rep.Markdown())
	return nil
}
