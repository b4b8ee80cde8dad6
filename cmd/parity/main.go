// Command parity records Loki's answers to the parity corpus as goldens,
// or compares a live vloki against them.
//
//	parity record  -url http://127.0.0.1:3100   # a fresh Loki v3.7.8
//	parity compare -url http://127.0.0.1:3100   # a vloki holding the dataset
//	parity settle  -url http://127.0.0.1:3100   # a fresh Loki: which goldens its flushes change
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/testing/parity"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: parity record|compare -url URL [-push=true]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	url := fs.String("url", "", "Loki API base URL")
	dir := fs.String("dir", "parity", "parity directory (corpus/, goldens.jsonl)")
	push := fs.Bool("push", true, "push the dataset first")
	tenant := fs.String("tenant", "", "X-Scope-OrgID to send")
	only := fs.String("only", "", "record only the cases whose id starts with this, keeping the other goldens")
	slices := fs.Int("slices", 0, "settle: push the dataset in this many time windows, flushing Loki after each")
	wait := fs.Duration("wait", 0, "settle: after the flush, wait this long (Loki builds its index every 15m) and compare again")
	_ = fs.Parse(os.Args[2:])
	var err error
	if os.Args[1] == "settle" {
		err = settle(*url, *dir, *slices, *wait)
	} else {
		err = run(os.Args[1], *url, *dir, *tenant, *only, *push)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "parity:", err)
		os.Exit(1)
	}
}

func run(cmd, url, dir, tenant, only string, push bool) error {
	ctx := context.Background()
	cases, err := parity.LoadCorpus(dir + "/corpus")
	if err != nil {
		return err
	}
	if push {
		ds := parity.Generate(parity.DefaultLines, parity.DefaultSpan)
		if err := parity.Push(ctx, url, tenant, ds, 1<<20); err != nil {
			return err
		}
		if err := parity.WaitQueryable(ctx, url, tenant, parity.Total(ds), 5*time.Minute); err != nil {
			return err
		}
	}
	switch cmd {
	case "record":
		return record(ctx, url, dir, tenant, only, cases)
	case "compare":
		goldens, err := parity.LoadGoldens(dir + "/goldens.jsonl")
		if err != nil {
			return err
		}
		results, err := parity.RunCases(ctx, url, tenant, cases, goldens)
		if err != nil {
			return err
		}
		for _, r := range results {
			if !r.Passed() {
				fmt.Printf("FAIL %s: %v\n", r.Case.ID, r.Diffs)
			}
		}
		fmt.Print(parity.Report(results))
		return nil
	}
	return fmt.Errorf("unknown command %q", cmd)
}

// record asks every case twice and keeps the first answer; cases whose two
// answers differ are listed, as Loki is nondeterministic there.
func record(ctx context.Context, url, dir, tenant, only string, cases []parity.Case) error {
	var answers []parity.Answer
	var unstable []string
	kept, err := keptGoldens(dir, only, cases)
	if err != nil {
		return err
	}
	answers = append(answers, kept...)
	for _, c := range cases {
		if !strings.HasPrefix(c.ID, only) {
			continue
		}
		a, err := parity.Ask(ctx, url, tenant, c)
		if err != nil {
			return err
		}
		b, err := parity.Ask(ctx, url, tenant, c)
		if err != nil {
			return err
		}
		if len(parity.Compare(c, a, b)) > 0 {
			unstable = append(unstable, c.ID)
		}
		answers = append(answers, a)
	}
	if err := parity.WriteGoldens(dir+"/goldens.jsonl", answers); err != nil {
		return err
	}
	fmt.Printf("recorded %d cases (%d kept) into %s/goldens.jsonl\n", len(answers)-len(kept), len(kept), dir)
	for _, id := range unstable {
		fmt.Printf("UNSTABLE %s: Loki answered differently twice\n", id)
	}
	return nil
}

// keptGoldens are the existing answers of the corpus cases not being
// recorded again (all of them when only is empty: none kept).
func keptGoldens(dir, only string, cases []parity.Case) ([]parity.Answer, error) {
	if only == "" {
		return nil, nil
	}
	old, err := parity.LoadGoldens(dir + "/goldens.jsonl")
	if err != nil {
		return nil, err
	}
	var kept []parity.Answer
	for _, c := range cases {
		if a, ok := old[c.ID]; ok && !strings.HasPrefix(c.ID, only) {
			kept = append(kept, a)
		}
	}
	return kept, nil
}
