package main

import (
	"context"
	"fmt"
	"time"

	"github.com/vloki/vloki/internal/testing/parity"
)

// settle shows where Loki disagrees with its own recorded goldens as its
// ingesters hand data to the store: it pushes the dataset into a fresh
// Loki (in time slices with a flush after each when slices > 0, as agents
// shipping in real time deliver it), then lists the cases answered
// differently from the goldens right away, after a full flush, and after
// wait more (the store's index is built every 15 minutes).
func settle(url, dir string, slices int, wait time.Duration) error {
	ctx := context.Background()
	cases, err := parity.LoadCorpus(dir + "/corpus")
	if err != nil {
		return err
	}
	goldens, err := parity.LoadGoldens(dir + "/goldens.jsonl")
	if err != nil {
		return err
	}
	ds := parity.Generate(parity.DefaultLines, parity.DefaultSpan)
	if err := pushSettling(ctx, url, ds, slices); err != nil {
		return err
	}
	if err := parity.WaitQueryable(ctx, url, "", parity.Total(ds), 5*time.Minute); err != nil {
		return err
	}
	report := func(stage string) error {
		results, err := parity.RunCases(ctx, url, "", cases, goldens)
		if err != nil {
			return err
		}
		fmt.Printf("== %s: Loki now answers differently from its golden on:\n", stage)
		for _, r := range results {
			if !r.Passed() {
				fmt.Printf("   %s\n", r.Case.ID)
			}
		}
		return nil
	}
	if err := report(fmt.Sprintf("pushed in %d slices", max(slices, 1))); err != nil {
		return err
	}
	if err := parity.FlushLoki(ctx, url, 5*time.Minute); err != nil {
		return err
	}
	if err := report("flushed"); err != nil {
		return err
	}
	if wait <= 0 {
		return nil
	}
	time.Sleep(wait)
	return report(fmt.Sprintf("flushed, then %v", wait))
}

func pushSettling(ctx context.Context, url string, ds []parity.Stream, slices int) error {
	if slices <= 0 {
		return parity.Push(ctx, url, "", ds, 1<<20)
	}
	for _, part := range parity.Slices(ds, slices) {
		if err := parity.Push(ctx, url, "", part, 1<<20); err != nil {
			return err
		}
		if err := parity.FlushLoki(ctx, url, 5*time.Minute); err != nil {
			return err
		}
	}
	return nil
}
