package bench

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// RunConfig is one run: workloads × loads × targets.
type RunConfig struct {
	Now       time.Time
	Workloads []Workload
	Loads     []Load
	Targets   []Target
	// Window places each request's time window (zero: fixed).
	Window Window
	// Verify is the target whose answers are checked, Reference the one
	// they must equal (Loki when present); no check when either is empty.
	Verify, Reference string
	// Progress receives a live line while steps run (nil: none).
	Progress io.Writer
	// Warmup, when > 0, fires each workload at each target this long,
	// unmeasured, before its measured step, with windows the step does
	// not ask (another shift seed; moving modes move on by themselves):
	// a dashboard already in use, not a cache filling up in the step.
	Warmup time.Duration
}

// Run verifies each workload's answers, then times it at every load
// against every target, one step at a time.
func Run(ctx context.Context, cfg RunConfig) (*Report, error) {
	r := &Report{Date: time.Now(), Duration: cfg.Loads[0].Duration, Window: cfg.window().Mode}
	for _, w := range cfg.Workloads {
		if v, ok, err := verify(ctx, cfg, w); err != nil {
			return nil, err
		} else if ok {
			r.Verdicts = append(r.Verdicts, v)
		}
		for _, l := range cfg.Loads {
			for _, tg := range cfg.Targets {
				if err := ctx.Err(); err != nil {
					return r, err
				}
				if cfg.Warmup > 0 {
					warmUp(cfg, w, l, tg)
				}
				r.Steps = append(r.Steps, step(cfg, w, l, tg))
			}
		}
	}
	return r, nil
}

func verify(ctx context.Context, cfg RunConfig, w Workload) (Verdict, bool, error) {
	target, okT := find(cfg.Targets, cfg.Verify)
	ref, okR := find(cfg.Targets, cfg.Reference)
	if !okT || !okR {
		return Verdict{}, false, nil
	}
	v, err := Verify(ctx, w.Name, cfg.window().firstRound(w, cfg.Now, time.Now()), target, ref)
	return v, true, err
}

func (cfg RunConfig) window() Window {
	if cfg.Window.Mode == "" {
		return Window{Mode: WindowFixed, Seed: cfg.Window.Seed}
	}
	return cfg.Window
}

func find(ts []Target, name string) (Target, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t, true
		}
	}
	return Target{}, false
}

// warmUp fires w at tg for cfg.Warmup at load l, with shifts of its own
// seed, and discards what it measured.
func warmUp(cfg RunConfig, w Workload, l Load, tg Target) {
	cfg.Window = cfg.window()
	cfg.Window.Seed = splitmix(cfg.Window.Seed ^ warmupSalt)
	l.Duration = cfg.Warmup
	step(cfg, w, l, tg)
}

// warmupSalt makes the warm-up's shift seed differ from the step's.
const warmupSalt = 0x7761726d7570 // "warmup"

// step fires one workload at one load against one target.
func step(cfg RunConfig, w Workload, l Load, tg Target) Step {
	began := time.Now()
	src, queries := requests(tg, w, cfg.window(), cfg.Now)
	if queries == 0 {
		return Step{Workload: w.Name, Target: tg.Name, Clients: l.Clients, Rate: l.Rate}
	}
	s := startSampler(tg.PIDs, tg.metricsURL())
	var done atomic.Uint64
	stop := showProgress(cfg.Progress, fmt.Sprintf("%s, %s, %s", w.Name, Step{Clients: l.Clients, Rate: l.Rate}.load(), tg.Name), began,
		func() uint64 { return done.Load() }, "requests")
	m := fire(src, l, &done)
	stop()
	return newStep(w, tg, l, queries, m, s.finish())
}

// showProgress redraws one status line until stopped: how many units are
// done, and how fast.
func showProgress(out io.Writer, what string, began time.Time, done func() uint64, unit string) func() {
	if out == nil {
		return func() {}
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			el := time.Since(began)
			n := done()
			fmt.Fprintf(out, "\r\033[K%s: %4.1fs, %d %s, %.0f/s", what, el.Seconds(), n, unit, float64(n)/max(el.Seconds(), 0.001))
			select {
			case <-quit:
				fmt.Fprintln(out)
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(quit); <-finished }
}
