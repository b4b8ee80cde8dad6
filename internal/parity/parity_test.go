package parity

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/metrics"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/vltest"
)

func TestMain(m *testing.M) { os.Exit(vltest.Main(m)) }

func parityDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "parity")
}

// TestParity answers the corpus with vloki on both backends and compares
// with the goldens recorded from Loki. A failing case must be listed in
// parity/known-gaps.txt, and a listed case must fail: the registry always
// tells the truth.
func TestParity(t *testing.T) {
	dir := parityDir()
	goldens, err := LoadGoldens(filepath.Join(dir, "goldens.jsonl"))
	if os.IsNotExist(err) {
		t.Skip("parity/goldens.jsonl not recorded yet: run make parity-record")
	}
	if err != nil {
		t.Fatal(err)
	}
	cases, err := LoadCorpus(filepath.Join(dir, "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	gaps, err := KnownGaps(filepath.Join(dir, "known-gaps.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ds := Generate(DefaultLines, DefaultSpan)
	for _, b := range vltest.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			cfg := config.Default()
			app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), b.Client, b.Name, func() {})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(app.Handler())
			defer srv.Close()
			ctx := context.Background()
			if err := Push(ctx, srv.URL, "", ds, 1<<20); err != nil {
				t.Fatal(err)
			}
			vltest.Flush(t, b.Client)
			results, err := RunCases(ctx, srv.URL, "", cases, goldens)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("parity report (%s):\n%s", b.Name, Report(results))
			checkRegistry(t, results, gaps)
		})
	}
}

func checkRegistry(t *testing.T, results []Result, gaps map[string]string) {
	var unexpected, fixed []string
	for _, r := range results {
		_, listed := gaps[r.Case.ID]
		switch {
		case !r.Passed() && !listed:
			unexpected = append(unexpected, fmt.Sprintf("%s: %v", r.Case.ID, r.Diffs))
		case r.Passed() && listed:
			fixed = append(fixed, r.Case.ID)
		}
	}
	sort.Strings(unexpected)
	sort.Strings(fixed)
	for _, u := range unexpected {
		t.Errorf("fails and is not a known gap: %s", u)
	}
	for _, f := range fixed {
		t.Errorf("passes but is listed in known-gaps.txt: remove %s", f)
	}
}
