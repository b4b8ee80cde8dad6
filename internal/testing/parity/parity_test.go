package parity

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/onewrite"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/testing/vltest"
)

func TestMain(m *testing.M) { os.Exit(vltest.Main(m)) }

func parityDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "parity")
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
	cluster, _ := vltest.ClusterBackend(t, 1)
	for _, b := range append(vltest.Both(t), cluster) {
		t.Run(b.Name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Backend.SoleWriter = "on"                 // every row is pushed through this vloki
			cfg.Ingester.QueryStoreMaxLookBackPeriod = -1 // as parity/loki-config.yaml
			app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), b.Client, b.Name, func() {})
			if err != nil {
				t.Fatal(err)
			}
			srv := newServer(app.Handler())
			defer srv.Close()
			ctx := context.Background()
			if err := Push(ctx, srv.URL, "", ds, 1<<20); err != nil {
				t.Fatal(err)
			}
			b.Sync(t)
			results, err := RunCases(ctx, srv.URL, "", cases, goldens)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("parity report (%s):\n%s", b.Name, Report(results))
			checkRegistry(t, results, gaps)
			switch {
			case vltest.IsExternal(b.Name): // a process of its own: free to change its data
				checkWarmAndInvalidated(t, srv.URL, b, cases, ds)
			case b.Name == "embedded":
				checkExtents(t, b, cases)
			case b.Name == "cluster":
				checkSecondReplica(t, b, cases, goldens, results)
			}
		})
	}
}

// checkSecondReplica asks the corpus of a second vloki on the same
// cluster (data pushed through the first) and requires the first's
// results case by case: replicas are stateless.
func checkSecondReplica(t *testing.T, b vltest.Backend, cases []Case, goldens map[string]Answer, first []Result) {
	app, err := server.Assemble(config.Default(), slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), b.Client, b.Name, func() {})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(app.Handler())
	defer srv.Close()
	second, err := RunCases(context.Background(), srv.URL, "", cases, goldens)
	if err != nil {
		t.Fatal(err)
	}
	for i := range second {
		if second[i].Passed() != first[i].Passed() {
			t.Errorf("%s: the second replica answers %v, the first %v", second[i].Case.ID, second[i].Diffs, first[i].Diffs)
		}
	}
}

// checkWarmAndInvalidated asks the corpus again, now largely from the
// results cache, and requires the answers vloki gave cold; then pushes an
// entry stamped inside the corpus' hours and requires every answer to
// equal that of a vloki without a results cache on the same data.
func checkWarmAndInvalidated(t *testing.T, url string, b vltest.Backend, cases []Case, ds []Stream) {
	ctx := context.Background()
	cold, err := askAll(ctx, url, cases)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := askAll(ctx, url, cases)
	if err != nil {
		t.Fatal(err)
	}
	diffs := 0
	for i, c := range cases {
		if d := Compare(c, cold[i], warm[i]); d != nil {
			diffs++
			t.Errorf("%s: warm answer differs from the cold one: %v", c.ID, d)
		}
	}
	if hits := cacheHits(t, url); hits < float64(len(cases))/2 {
		t.Errorf("only %v of %d warm answers came from the results cache", hits, len(cases))
	}
	late := Stream{Labels: ds[0].Labels, Entries: []lokidata.Entry{{TimestampNs: Anchor.Add(12*time.Hour + time.Millisecond).UnixNano(), Line: "late entry, pushed after the answers were cached"}}}
	if err := Push(ctx, url, "", []Stream{late}, 1<<20); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Frontend.CacheResults = false
	app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), b.Client, b.Name, func() {})
	if err != nil {
		t.Fatal(err)
	}
	fresh := newServer(app.Handler())
	defer fresh.Close()
	after, err := askAll(ctx, url, cases)
	if err != nil {
		t.Fatal(err)
	}
	want, err := askAll(ctx, fresh.URL, cases)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i, c := range cases {
		if d := Compare(c, want[i], after[i]); d != nil {
			t.Errorf("%s: after a late push, the cached vloki answers differently from an uncached one: %v", c.ID, d)
		}
		if Compare(c, cold[i], want[i]) != nil {
			changed++
		}
	}
	if changed == 0 {
		t.Error("the late push changed no answer: the check proves nothing")
	}
	t.Logf("warm: %d of %d answers identical to cold; after a late push %d answers changed, all as an uncached vloki's", len(cases)-diffs, len(cases), changed)
}

func askAll(ctx context.Context, url string, cases []Case) ([]Answer, error) {
	out := make([]Answer, len(cases))
	for i, c := range cases {
		a, err := Ask(ctx, url, "", c)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.ID, err)
		}
		out[i] = a
	}
	return out, nil
}

// cacheHits reads vloki_results_cache_hits_total from /metrics.
func cacheHits(t *testing.T, url string) float64 {
	return metricValue(t, url, "vloki_results_cache_hits_total")
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

// newServer serves h as the vloki binary does: answers leave in one
// write (onewrite).
func newServer(h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = onewrite.Install(srv.Config, srv.Listener)
	srv.Start()
	return srv
}
