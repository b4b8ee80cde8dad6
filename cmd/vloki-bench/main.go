// Command vloki-bench loads realistic logs into vloki, VictoriaLogs and
// Loki, and fires Grafana's workloads at them side by side:
//
//	vloki-bench seed -now T -target vloki=http://…,pid=123 -target loki=http://…
//	vloki-bench run  -now T -target vloki=http://… -target victorialogs=http://…,twins -verify vloki -reference loki
//	vloki-bench soak -now T -target vloki=http://…,pid=123 -clients 200 -duration 5m -push-rate 500
//	vloki-bench each -now T -workloads heavy,compute -runs 15 -target vloki=http://… -target loki=http://…
//	vloki-bench scale -now T -lines 30000000 [-hosts] -target vloki=http://…,pid=1 -target victorialogs=http://…,twins
//	                                               (make bench-scale: the Quickwit benchmark's data and queries)
//	vloki-bench run  ... -window fixed|now|shifted|grafana [-window-seed N]   (where each request's window sits)
//	vloki-bench agent -url http://victorialogs… -rate 100   (another agent writing into VictoriaLogs until stopped)
//	vloki-bench victoria-logs [-release v1.24.0]   (builds a supported release once; prints its path)
//	vloki-bench canary -addr localhost:3100 -interval 100ms -duration 5m [-compare canary_loki.json]
//	                                               (vloki's own end-to-end checker, loki-canary's flags)
//
// See make bench-load, which starts everything and runs both.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vloki/vloki/internal/testing/vlrelease"
	"github.com/vloki/vloki/internal/tools/bench"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "vloki-bench:", err)
		}
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: vloki-bench seed|run|soak|each|scale|agent|victoria-logs|canary [flags]")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "seed":
		return seed(ctx, args[1:])
	case "run":
		return runWorkloads(ctx, args[1:])
	case "soak":
		return soak(ctx, args[1:])
	case "each":
		return each(ctx, args[1:])
	case "scale":
		return scale(ctx, args[1:])
	case "agent":
		return agent(ctx, args[1:])
	case "victoria-logs":
		return victoriaLogs(args[1:])
	case "canary":
		return runCanary(ctx, args[1:])
	}
	return fmt.Errorf("unknown command %q: want seed, run, soak, each, scale, agent, victoria-logs or canary", args[0])
}

// common are the flags both commands take.
type common struct {
	now     timeFlag
	targets targetsFlag
}

func (c *common) bind(fs *flag.FlagSet) {
	fs.Var(&c.now, "now", "end of the seeded data and the workloads' now (Unix seconds or RFC3339)")
	fs.Var(&c.targets, "target", "name=URL[|URL…][,twins][,ownendpoint][,twinqueries][,pid=N+M][,tenant=T][,nocache]: a server under test (repeat; several URLs: replicas taken in turn); twins: VictoriaLogs asked LogsQL twins (pushed through jsonline); ownendpoint: a twins target pushed in -via's format through VictoriaLogs' own endpoint for it; twinqueries: only the LogQL queries that have a twin (the same work VictoriaLogs is timed on); nocache: Cache-Control: no-cache on every request")
}

func seed(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	var c common
	c.bind(fs)
	lines := fs.Int("lines", 725_000, "lines over all services")
	days := fs.Float64("days", 1, "days of logs ending at -now")
	services := fs.Int("services", 12, "services logging (at most 12)")
	highCard := fs.Bool("high-cardinality", false, "a pod label per stream, 20 pods a service")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := bench.DatasetConfig{Now: c.now.t, Days: *days, Lines: *lines, Services: *services, HighCardinality: *highCard}
	start := time.Now()
	n, err := bench.Seed(ctx, cfg, c.targets.list)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "seeded %d lines into %d targets in %s\n", n, len(c.targets.list), time.Since(start).Round(time.Second))
	return nil
}

func runWorkloads(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var c common
	c.bind(fs)
	workloads := fs.String("workloads", "small,heavy,long_range,compute,drilldown,refresh", "workloads to run")
	clients := fs.String("clients", "10,50", "closed-loop client counts")
	rate := fs.Int("rate", 0, "open loop instead: requests a second at a constant pace")
	duration := fs.Duration("duration", 8*time.Second, "length of each step")
	timeout := fs.Duration("timeout", 2*time.Minute, "timeout of one request")
	verify := fs.String("verify", "vloki", "target whose answers are verified")
	reference := fs.String("reference", "loki", "target they must equal (skipped when absent)")
	out := fs.String("out", "bench-results", "directory for report.md and report.json")
	cpuProfile := fs.String("cpuprofile", "", "write the load tool's own CPU profile to this file")
	window := fs.String("window", "fixed", "where each request's window sits, for every workload: fixed (the run's -now; refresh moves every 5s), now (the wall clock at the request, ms), shifted (-now minus a seeded random 0–2h, ns), grafana (as now, in Grafana 12's request shape: docs/grafana-requests.md)")
	windowSeed := fs.Uint64("window-seed", 1, "seed of the shifted mode's shifts (the same seed asks every target the same windows)")
	warmup := fs.Duration("warmup", 0, "fire each workload at each target this long, unmeasured, before its step (windows of another shift seed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mode, err := bench.ParseWindowMode(*window)
	if err != nil {
		return err
	}
	if *cpuProfile != "" {
		stop, err := profileCPU(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	cfg := bench.RunConfig{Now: c.now.t, Targets: c.targets.list, Verify: *verify, Reference: *reference, Progress: os.Stderr,
		Window: bench.Window{Mode: mode, Seed: *windowSeed}, Warmup: *warmup}
	if cfg.Workloads, err = pickWorkloads(*workloads); err != nil {
		return err
	}
	if cfg.Loads, err = loads(*clients, *rate, *duration, *timeout); err != nil {
		return err
	}
	rep, err := bench.Run(ctx, cfg)
	if rep != nil {
		if werr := write(*out, rep); werr != nil {
			return werr
		}
		fmt.Print(rep.Markdown())
	}
	return err
}

func soak(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	var c common
	c.bind(fs)
	clients := fs.Int("clients", 200, "closed-loop clients")
	duration := fs.Duration("duration", 5*time.Minute, "length of the soak")
	pushRate := fs.Int("push-rate", 500, "lines a second pushed alongside")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(c.targets.list) != 1 {
		return fmt.Errorf("soak takes one -target")
	}
	cfg := bench.SoakConfig{Now: c.now.t, Target: c.targets.list[0], Clients: *clients, Duration: *duration, PushRate: *pushRate}
	res, err := bench.Soak(ctx, cfg)
	if res != nil {
		fmt.Print(res.Markdown(cfg))
	}
	if err != nil {
		return err
	}
	if res.LinesFound < int(res.LinesAcked) {
		return fmt.Errorf("lost %d acknowledged lines", int(res.LinesAcked)-res.LinesFound)
	}
	return nil
}

// each times every query of the workloads alone, median of -runs.
func each(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("each", flag.ContinueOnError)
	var c common
	c.bind(fs)
	workloads := fs.String("workloads", "small,heavy,long_range,compute,drilldown", "workloads whose queries are timed")
	runs := fs.Int("runs", 15, "sequential requests per query and target (median reported)")
	timeout := fs.Duration("timeout", 2*time.Minute, "timeout of one request")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ws, err := pickWorkloads(*workloads)
	if err != nil {
		return err
	}
	cfg := bench.EachConfig{Now: c.now.t, Workloads: ws, Targets: c.targets.list, Runs: *runs, Timeout: *timeout}
	ts, err := bench.Each(ctx, cfg)
	fmt.Print(bench.EachMarkdown(ts, cfg.Targets))
	return err
}

func pickWorkloads(names string) ([]bench.Workload, error) {
	all := map[string]bench.Workload{}
	for _, w := range bench.Workloads() {
		all[w.Name] = w
	}
	var out []bench.Workload
	for _, n := range strings.Split(names, ",") {
		w, ok := all[strings.TrimSpace(n)]
		if !ok {
			return nil, fmt.Errorf("unknown workload %q", n)
		}
		out = append(out, w)
	}
	return out, nil
}

func loads(clients string, rate int, d, timeout time.Duration) ([]bench.Load, error) {
	if rate > 0 {
		return []bench.Load{{Rate: rate, Duration: d, Timeout: timeout}}, nil
	}
	var out []bench.Load
	for _, c := range strings.Split(clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad client count %q", c)
		}
		out = append(out, bench.Load{Clients: n, Duration: d, Timeout: timeout})
	}
	return out, nil
}

// report is a bench report (load or scale) as written to its directory.
type report interface {
	JSON() ([]byte, error)
	Markdown() string
}

func write(dir string, rep report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := rep.JSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), js, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(rep.Markdown()), 0o644)
}

// timeFlag reads Unix seconds or RFC3339.
type timeFlag struct{ t time.Time }

func (f *timeFlag) String() string { return f.t.String() }

func (f *timeFlag) Set(v string) error {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		f.t = time.Unix(n, 0)
		return nil
	}
	t, err := time.Parse(time.RFC3339, v)
	f.t = t
	return err
}

// targetsFlag collects -target values.
type targetsFlag struct{ list []bench.Target }

func (f *targetsFlag) String() string { return fmt.Sprint(len(f.list), " targets") }

func (f *targetsFlag) Set(v string) error {
	name, rest, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("target %q: want name=URL[,options]", v)
	}
	parts := strings.Split(rest, ",")
	urls := strings.Split(parts[0], "|")
	for i := range urls {
		urls[i] = strings.TrimSuffix(urls[i], "/")
	}
	tg := bench.Target{Name: name, URL: urls[0], Replicas: urls[1:], Header: http.Header{}}
	for _, opt := range parts[1:] {
		k, val, _ := strings.Cut(opt, "=")
		switch k {
		case "twins":
			tg.Twins = true
			tg.Header.Set("AccountID", "0")
			tg.Header.Set("ProjectID", "0")
		case "pid":
			for _, p := range strings.Split(val, "+") {
				n, err := strconv.Atoi(p)
				if err != nil {
					return fmt.Errorf("target %s: bad pid %q", name, p)
				}
				tg.PIDs = append(tg.PIDs, n)
			}
		case "tenant":
			tg.Header.Set("X-Scope-OrgID", val)
		case "ownendpoint": // VictoriaLogs pushed in -via's format, not jsonline
			tg.Twins, tg.OwnEndpoint = true, true
			tg.Header.Set("AccountID", "0")
			tg.Header.Set("ProjectID", "0")
		case "twinqueries":
			tg.TwinQueriesOnly = true
		case "nocache":
			tg.Header.Set("Cache-Control", "no-cache") // vloki's frontend answers without its results cache
		default:
			return fmt.Errorf("target %s: unknown option %q", name, k)
		}
	}
	f.list = append(f.list, tg)
	return nil
}

// profileCPU profiles this process until stop is called.
func profileCPU(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// victoriaLogs builds a supported VictoriaLogs release from its module
// (once, kept in the cache) and prints the binary's path.
func victoriaLogs(args []string) error {
	fs := flag.NewFlagSet("victoria-logs", flag.ContinueOnError)
	name := fs.String("release", vlrelease.Newest().Name, "VictoriaLogs release")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, r := range vlrelease.Releases {
		if r.Name == *name {
			bin, err := r.Binary()
			if err != nil {
				return err
			}
			fmt.Println(bin)
			return nil
		}
	}
	return fmt.Errorf("release %q is not supported", *name)
}

// agent writes into a VictoriaLogs as another agent would, until stopped.
func agent(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	u := fs.String("url", "", "VictoriaLogs base URL, written through its own /insert/jsonline")
	rate := fs.Int("rate", 100, "lines a second")
	history := fs.Duration("history", 0, "first write the lines of this much past at -rate, as an agent that ran before")
	loki := fs.String("loki", "", "push through these vloki URLs' Loki push API in turn instead (URL[|URL…])")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *u == "" && *loki == "" || *rate <= 0 {
		return fmt.Errorf("agent takes -url or -loki and a positive -rate")
	}
	cfg := bench.AgentConfig{URL: *u, Rate: *rate, History: *history}
	cfg.Live = func(n int64) { fmt.Fprintf(os.Stderr, "agent wrote %d history lines; writing live\n", n) }
	if *loki != "" {
		cfg.Loki, *u = strings.Split(*loki, "|"), *loki
	}
	n, err := bench.Agent(ctx, cfg)
	fmt.Fprintf(os.Stderr, "agent wrote %d lines into %s\n", n, *u)
	return err
}
