package parity

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// TestFrozenSamplesMovingWindows asks every range metric query of the
// corpus over random moving windows (random ns ends up to now, some at
// now, random spans and steps) of a vloki keeping frozen samples and of an
// uncached one reading the same data, with pushes of new entries and of
// entries older than the kept samples arriving between rounds; the answers
// must be byte-identical, and the kept samples must really have served.
// Embedded with vloki the sole writer (pushes cut kept samples), and a
// victoria-logs process without it (only data older than the freshness
// window is kept; old pushes move the generation on).
func TestFrozenSamplesMovingWindows(t *testing.T) {
	queries := movingCorpus(t, isRangeMetric)
	eachMovingBackend(t, func(t *testing.T, b vltest.Backend, soleWriter string) {
		indexedBefore := metric.IndexedAnswers.Load()
		cached, asked := checkMovingWindows(t, b, soleWriter, queries, movingWindow, 3, 0)
		hits, stored := cached.metric(t, "vloki_frozen_samples_hits_total"), cached.metric(t, "vloki_frozen_samples_stored_total")
		indexed := metric.IndexedAnswers.Load() - indexedBefore
		t.Logf("%d windows asked of %d queries; frozen samples: %v evaluations took kept samples, %v entries stored; the stream index answered %d range aggregations", asked, len(queries), hits, stored, indexed)
		// Most corpus queries VictoriaLogs' buckets answer, which keep
		// their path: about one ask in thirteen reaches kept samples.
		if hits < float64(asked)/20 {
			t.Errorf("kept samples served %v of %d requests: the check proves little", hits, asked)
		}
		if soleWriter != "off" && indexed < int64(asked)/20 {
			t.Errorf("the stream index answered %d range aggregations of %d requests: the check proves little", indexed, asked)
		}
	})
}

// TestStepsMemoMovingWindows asks every range metric query of the corpus
// over windows in Grafana's shape (start aligned to the step, end now at
// ms precision, a quarter of them on a step) of a caching vloki and of
// one reading the storage alone, pushing recent and late entries between
// queries and after a third of the asks: byte-identical answers, and with vloki the sole writer the
// answers kept by their steps must have served.
func TestStepsMemoMovingWindows(t *testing.T) {
	queries := movingCorpus(t, isRangeMetric)
	eachMovingBackend(t, func(t *testing.T, b vltest.Backend, soleWriter string) {
		cached, asked := checkMovingWindows(t, b, soleWriter, queries, grafanaWindow, 5, 3)
		hits := cached.metric(t, "vloki_results_cache_steps_hits_total")
		t.Logf("%d windows asked of %d queries; %v answered by their steps", asked, len(queries), hits)
		if soleWriter != "off" && hits < float64(asked)/10 {
			t.Errorf("answers by their steps served %v of %d requests: the check proves little", hits, asked)
		}
	})
}

// grafanaWindow is q as a panel in Grafana's shape asks it: its step and
// span fixed per query, its start aligned down to the step, its end now
// at ms precision, a quarter of the time exactly on its last step.
func grafanaWindow(r *rand.Rand, q Case, now time.Time) Case {
	steps := []time.Duration{15 * time.Second, 30 * time.Second, time.Minute}
	spans := []time.Duration{30 * time.Minute, time.Hour, 3 * time.Hour}
	n := len(q.Params["query"])
	step, span := steps[n%len(steps)], spans[n/3%len(spans)]
	end := time.UnixMilli(now.UnixMilli())
	start := end.Add(-span).Truncate(step)
	if r.IntN(4) == 0 {
		end = start.Add(end.Sub(start) / step * step)
	}
	c := q
	c.Params = map[string]string{}
	for k, v := range q.Params {
		c.Params[k] = v
	}
	c.Params["start"] = strconv.FormatInt(start.UnixNano(), 10)
	c.Params["end"] = strconv.FormatInt(end.UnixNano(), 10)
	c.Params["step"] = strconv.FormatInt(int64(step/time.Second), 10)
	return c
}

// movingCorpus is one case per distinct query of the corpus that keep
// selects; the test is skipped in -short mode (it starts VictoriaLogs).
func movingCorpus(t *testing.T, keep func(Case) bool) []Case {
	t.Helper()
	if testing.Short() {
		t.Skip("starts VictoriaLogs")
	}
	cases, err := LoadCorpus(filepath.Join(parityDir(), "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	return distinctQueries(corpusCases(t, cases, keep))
}

// eachMovingBackend runs check on the embedded engine with vloki the
// sole writer and on a victoria-logs process without it.
func eachMovingBackend(t *testing.T, check func(t *testing.T, b vltest.Backend, soleWriter string)) {
	emb, err := vltest.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	newest := vltest.Releases[len(vltest.Releases)-1]
	t.Run("embedded-sole-writer", func(t *testing.T) { check(t, vltest.Backend{Name: "embedded", Client: emb}, "on") })
	t.Run("external-not-sole-writer", func(t *testing.T) { check(t, vltest.External(t, newest), "off") })
	t.Run("external-sole-writer-replicas", func(t *testing.T) { check(t, vltest.External(t, newest), replicas) })
}

// replicas, as checkMovingWindows' soleWriter, is two vloki replicas that
// together are the only writers (-backend.sole-writer-peers), pushed
// through and asked in turn.
const replicas = "replicas"

// TestRecentLogsMovingWindows asks every log query of the corpus over
// moving windows (most ending at now, later each time) of a vloki keeping
// log answers' frozen spans and of one reading the storage alone, with
// pushes arriving between asks, on both backends: byte-identical answers,
// and the kept spans must really have served.
func TestRecentLogsMovingWindows(t *testing.T) {
	queries := movingCorpus(t, isRangeLog)
	eachMovingBackend(t, func(t *testing.T, b vltest.Backend, soleWriter string) {
		cached, asked := checkMovingWindows(t, b, soleWriter, queries, refreshingOrShiftedWindow, 5, 0)
		hits := cached.metric(t, "vloki_recent_logs_hits_total")
		t.Logf("%d windows asked of %d log queries; %v answered from kept spans", asked, len(queries), hits)
		if hits < float64(asked)/20 {
			t.Errorf("kept spans served %v of %d requests: the check proves little", hits, asked)
		}
	})
}

// TestSeriesMovingWindows: series over refreshing and moved-back windows,
// answered from the stream index (vloki the sole writer), equal those of
// a vloki reading the storage alone, while pushes arrive. The corpus's
// series requests and selectors over the generated labels, 10 windows
// each a round.
func TestSeriesMovingWindows(t *testing.T) {
	if testing.Short() {
		t.Skip("starts VictoriaLogs")
	}
	cases, err := LoadCorpus(filepath.Join(parityDir(), "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	var queries []Case
	for _, c := range cases {
		if c.Endpoint == "/loki/api/v1/series" {
			queries = append(queries, c)
		}
	}
	for i, sel := range []string{`{app=~".+"}`, `{namespace="shop", app!="cart"}`, `{env=~"prod|dev"}`, "{app=\"cart\"}\n{namespace=\"shop\"}"} {
		queries = append(queries, Case{ID: "series_moving_" + strconv.Itoa(i), Endpoint: "/loki/api/v1/series", Params: map[string]string{"match[]": sel}})
	}
	eachMovingBackend(t, func(t *testing.T, b vltest.Backend, soleWriter string) {
		cached, asked := checkMovingWindows(t, b, soleWriter, queries, refreshingOrShiftedWindow, 10, 0)
		fromMemory := cached.metric(t, `vloki_series_answers_total{source="memory"}`)
		t.Logf("%d windows asked of %d series requests; %v answered from the stream index", asked, len(queries), fromMemory)
		if soleWriter != "off" && fromMemory < float64(asked)/2 {
			t.Errorf("the stream index answered %v of %d requests: the check proves little", fromMemory, asked)
		}
	})
}

// isRangeLog: a log query asked of query_range.
func isRangeLog(c Case) bool {
	if c.Endpoint != "/loki/api/v1/query_range" {
		return false
	}
	e, err := logql.ParseExpr(c.Params["query"])
	_, ok := e.(logql.LogSelectorExpr)
	return err == nil && ok
}

// refreshingOrShiftedWindow is q over a refreshing window half the time,
// else over one of 1 to 10 minutes moved back into the last 20, as
// viewers of one dashboard looking at different moments ask: their kept
// spans join.
func refreshingOrShiftedWindow(r *rand.Rand, q Case, now time.Time) Case {
	if r.IntN(2) == 0 {
		return refreshingWindow(r, q, now)
	}
	c := refreshingWindow(r, q, now)
	end := now.Add(-time.Duration(r.Int64N(int64(20 * time.Minute))))
	spans := []time.Duration{time.Minute, 3 * time.Minute, 10 * time.Minute}
	c.Params["start"] = strconv.FormatInt(end.Add(-spans[r.IntN(len(spans))]).UnixNano(), 10)
	c.Params["end"] = strconv.FormatInt(end.UnixNano(), 10)
	return c
}

// refreshingWindow is q over a window as a refreshing panel asks it: its
// end now at ns precision three times in four (else up to 90 minutes
// back), its span 5 minutes to 6 hours.
func refreshingWindow(r *rand.Rand, q Case, now time.Time) Case {
	end := now
	if r.IntN(4) == 0 {
		end = now.Add(-time.Duration(r.Int64N(int64(90 * time.Minute))))
	}
	spans := []time.Duration{5 * time.Minute, 30 * time.Minute, time.Hour, 6 * time.Hour}
	c := q
	c.Params = map[string]string{}
	for k, v := range q.Params {
		c.Params[k] = v
	}
	c.Params["start"] = strconv.FormatInt(end.Add(-spans[r.IntN(len(spans))]).UnixNano(), 10)
	c.Params["end"] = strconv.FormatInt(end.UnixNano(), 10)
	return c
}

// checkMovingWindows asks every query over asks windows of window of a caching
// vloki and of a reference reading the storage alone, pushing between
// queries (and, with midPushes > 0, after one ask in midPushes of a
// query's), and returns the caching vloki's URLs (replicas: both) and how
// many it asked.
func checkMovingWindows(t *testing.T, b vltest.Backend, soleWriter string, queries []Case, window func(*rand.Rand, Case, time.Time) Case, asks, midPushes int) (servers, int) {
	ctx := context.Background()
	// A tenant of its own: the embedded engine is shared by the tests of
	// the process, and rows another test pushed before the stream index
	// started would keep it from answering.
	tenant := "moving-windows-" + strconv.FormatInt(movingTenants.Add(1), 10)
	cfg := config.Default()
	cfg.Auth.Enabled = true
	var cached servers
	if soleWriter == replicas {
		cfg.Backend.SoleWriter = "on"
		cached = servePeers(t, cfg, b)
	} else {
		cfg.Backend.SoleWriter = soleWriter
		cached = servers{serve(t, cfg, b)}
	}
	// The reference reads the storage alone: no caches, no stream index.
	cfg.Frontend.CacheResults, cfg.Frontend.Coalesce, cfg.Backend.SoleWriter = false, false, "off"
	cold := serve(t, cfg, b)

	now := time.Now()
	ds := movedTo(Generate(30_000, 6*time.Hour), now.Add(-6*time.Hour-time.Minute))
	if err := Push(ctx, cached.next(), tenant, ds, 1<<20); err != nil {
		t.Fatal(err)
	}
	b.Sync(t)
	r := rand.New(rand.NewPCG(uint64(now.UnixNano()), 28))
	t.Logf("seed %d", now.UnixNano())
	asked := 0
	push := func(old bool) {
		if err := Push(ctx, cached.next(), tenant, latePushes(r, ds, time.Now(), old), 1<<20); err != nil {
			t.Fatal(err)
		}
		b.Sync(t)
	}
	for round := range 2 {
		for i, q := range queries {
			if i%15 == 14 {
				push(false)
			}
			for range asks {
				c := window(r, q, time.Now())
				want, err := Ask(ctx, cold, tenant, c)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Ask(ctx, cached.at(i), tenant, c) // a query's asks reach one replica, pushes both
				if err != nil {
					t.Fatal(err)
				}
				asked++
				if d := sameAnswer(want, got); d != "" {
					t.Errorf("round %d, %s start=%s end=%s step=%s: %s", round, c.Params["query"], c.Params["start"], c.Params["end"], c.Params["step"], d)
				}
				if midPushes > 0 && r.IntN(midPushes) == 0 {
					push(false)
				}
			}
		}
		push(true)
	}
	if soleWriter == replicas {
		t.Logf("the replicas started over %v times in all (2 when they met)", cached.metric(t, "vloki_sole_writer_peers_gaps_total"))
	}
	return cached, asked
}

var movingTenants atomic.Int64

// distinctQueries keeps one case per query text.
func distinctQueries(cases []Case) []Case {
	seen := map[string]bool{}
	var out []Case
	for _, c := range cases {
		if q := c.Params["query"]; !seen[q] {
			seen[q] = true
			out = append(out, c)
		}
	}
	return out
}

// movedTo is the dataset with its entries moved so that it starts at
// start instead of Anchor.
func movedTo(ds []Stream, start time.Time) []Stream {
	d := start.Sub(Anchor).Nanoseconds()
	out := make([]Stream, len(ds))
	for i, s := range ds {
		out[i] = Stream{Labels: s.Labels, Entries: make([]lokidata.Entry, len(s.Entries))}
		for j, e := range s.Entries {
			e.TimestampNs += d
			out[i].Entries[j] = e
		}
	}
	return out
}

// movingWindow is q over a random window: its end a random time up to
// 90 minutes before now at ns precision (half of them now itself), its
// span and step random.
func movingWindow(r *rand.Rand, q Case, now time.Time) Case {
	end := now
	if r.IntN(2) > 0 {
		end = now.Add(-time.Duration(r.Int64N(int64(90 * time.Minute))))
	}
	spans := []time.Duration{10 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour}
	steps := []string{"15", "30", "60", "7.5", "137", "300"}
	span := spans[r.IntN(len(spans))]
	c := q
	c.Params = map[string]string{}
	for k, v := range q.Params {
		c.Params[k] = v
	}
	c.Params["start"] = strconv.FormatInt(end.Add(-span).UnixNano(), 10)
	c.Params["end"] = strconv.FormatInt(end.UnixNano(), 10)
	c.Params["step"] = steps[r.IntN(len(steps))]
	return c
}

// latePushes are entries copied from random streams of ds. Recent ones
// (old false): some at now, most 1 to 9 minutes ago — inside kept samples
// when vloki is the sole writer, whose pushes then cut them; inside the
// freshness window otherwise. Old ones: 20 minutes to 5 hours ago, older
// than the freshness window (the tenant's generation moves on).
func latePushes(r *rand.Rand, ds []Stream, now time.Time, old bool) []Stream {
	var out []Stream
	for range 10 {
		s := ds[r.IntN(len(ds))]
		if len(s.Entries) == 0 {
			continue
		}
		e := s.Entries[r.IntN(len(s.Entries))]
		switch {
		case old:
			e.TimestampNs = now.Add(-20*time.Minute).UnixNano() - r.Int64N(int64(280*time.Minute))
		case r.IntN(4) == 0:
			e.TimestampNs = now.UnixNano() - r.Int64N(int64(time.Second))
		default:
			e.TimestampNs = now.Add(-time.Minute).UnixNano() - r.Int64N(int64(8*time.Minute))
		}
		out = append(out, Stream{Labels: s.Labels, Entries: []lokidata.Entry{e}})
	}
	return out
}

// sameAnswer compares two answers byte for byte, less the stats (timings).
func sameAnswer(want, got Answer) string {
	if want.Status != got.Status {
		return "status " + strconv.Itoa(got.Status) + ", want " + strconv.Itoa(want.Status) + ": " + clip(got.Body) + " / " + clip(want.Body)
	}
	type data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	var w, g struct {
		Status string `json:"status"`
		Data   data   `json:"data"`
	}
	if json.Unmarshal([]byte(want.Body), &w) != nil || json.Unmarshal([]byte(got.Body), &g) != nil {
		if want.Body != got.Body {
			return "body " + clip(got.Body) + ", want " + clip(want.Body)
		}
		return ""
	}
	if w.Status != g.Status || w.Data.ResultType != g.Data.ResultType || string(w.Data.Result) != string(g.Data.Result) {
		return "body " + clip(got.Body) + ", want " + clip(want.Body)
	}
	return ""
}
