package parity

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/onewrite"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// checkExtents asks every range metric query of the corpus as a refreshed
// panel does: first over an earlier range, then over its own, on a fresh
// vloki whose results cache holds neither answer, so the second is built
// from the steps the first kept (extents) plus the new ones. Every answer
// must equal a cold one, and extents must really have served steps.
func checkExtents(t *testing.T, b vltest.Backend, cases []Case) {
	ctx := context.Background()
	metricCases := rangeMetricCases(t, cases)
	coldCfg := config.Default()
	coldCfg.Frontend.CacheResults = false
	cold, err := askAll(ctx, serve(t, coldCfg, b), metricCases)
	if err != nil {
		t.Fatal(err)
	}
	for _, shift := range []func(span time.Duration) time.Duration{
		func(time.Duration) time.Duration { return 30 * time.Minute },
		func(span time.Duration) time.Duration { return span / 2 },
	} {
		url := serve(t, config.Default(), b)
		for i, c := range metricCases {
			earlier, ok := shifted(t, c, shift)
			if !ok {
				continue
			}
			if _, err := Ask(ctx, url, "", earlier); err != nil {
				t.Fatal(err)
			}
			got, err := Ask(ctx, url, "", c)
			if err != nil {
				t.Fatal(err)
			}
			if d := Compare(c, cold[i], got); d != nil {
				t.Errorf("%s: answer built on kept steps differs from the cold one: %v", c.ID, d)
			}
		}
		reused, evaluated := metricValue(t, url, "vloki_extent_steps_reused_total"), metricValue(t, url, "vloki_extent_steps_evaluated_total")
		t.Logf("extents: %d range metric queries, %v steps reused, %v evaluated", len(metricCases), reused, evaluated)
		if reused < evaluated/10 {
			t.Errorf("extents served %v steps against %v evaluated: the check proves little", reused, evaluated)
		}
	}
}

// serve starts a vloki with cfg on b for the test.
func serve(t *testing.T, cfg config.Config, b vltest.Backend) string {
	app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), b.Client, b.Name, func() {})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(app.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

func rangeMetricCases(t *testing.T, cases []Case) []Case {
	return corpusCases(t, cases, isRangeMetric)
}

// isRangeMetric: a metric query asked of query_range without headers.
func isRangeMetric(c Case) bool {
	if c.Endpoint != "/loki/api/v1/query_range" || len(c.Headers) > 0 {
		return false
	}
	e, err := logql.ParseExpr(c.Params["query"])
	_, ok := e.(logql.SampleExpr)
	return err == nil && ok
}

// corpusCases are the cases keep accepts, at least 100 of them.
func corpusCases(t *testing.T, cases []Case, keep func(Case) bool) []Case {
	var out []Case
	for _, c := range cases {
		if keep(c) {
			out = append(out, c)
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d such cases in the corpus", len(out))
	}
	return out
}

// shifted is c over its range moved earlier by shift(span), with its step
// given explicitly; false when c's parameters do not parse.
func shifted(t *testing.T, c Case, shift func(time.Duration) time.Duration) (Case, bool) {
	q, err := c.Query()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest(http.MethodGet, "/?"+q, nil)
	form, err := loghttp.ReadForm(r)
	if err != nil {
		return Case{}, false
	}
	rq, err := loghttp.ParseRangeQuery(form, time.Now())
	if err != nil {
		return Case{}, false
	}
	d := shift(rq.End.Sub(rq.Start))
	out := c
	out.Params = map[string]string{}
	for k, v := range c.Params {
		out.Params[k] = v
	}
	out.Params["start"] = strconv.FormatInt(rq.Start.Add(-d).UnixNano(), 10)
	out.Params["end"] = strconv.FormatInt(rq.End.Add(-d).UnixNano(), 10)
	out.Params["step"] = strconv.FormatFloat(rq.Step.Seconds(), 'f', -1, 64)
	return out, true
}

// metricValue reads a counter from /metrics.
// servers are vloki replicas taken in turn (one, or two peers).
type servers []string

var turns atomic.Int64

func (s servers) next() string { return s[int(turns.Add(1))%len(s)] }

// at is the replica that serves the i-th of some requests.
func (s servers) at(i int) string { return s[i%len(s)] }

// metric sums a metric over the replicas.
func (s servers) metric(t *testing.T, name string) float64 {
	sum := 0.0
	for _, u := range s {
		sum += metricValue(t, u, name)
	}
	return sum
}

// servePeers starts two vloki replicas on b that together are its only
// writers (-backend.sole-writer-peers) and returns once each trusts the
// other.
func servePeers(t *testing.T, cfg config.Config, b vltest.Backend) servers {
	srvs := []*httptest.Server{httptest.NewUnstartedServer(nil), httptest.NewUnstartedServer(nil)}
	urls := servers{"http://" + srvs[0].Listener.Addr().String(), "http://" + srvs[1].Listener.Addr().String()}
	for i, srv := range srvs {
		cfg.Backend.SoleWriterPeers, cfg.Backend.SoleWriterSelf = urls, urls[i]
		app, err := server.Assemble(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), b.Client, b.Name, func() {})
		if err != nil {
			t.Fatal(err)
		}
		srv.Config.Handler = app.Handler()
		srv.Listener = onewrite.Install(srv.Config, srv.Listener)
		srv.Start()
		t.Cleanup(func() { srv.Close(); app.Close() })
	}
	deadline := time.Now().Add(15 * time.Second)
	for urls.metric(t, "vloki_sole_writer_peers_trusted") != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the replicas never trusted each other")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return urls
}

func metricValue(t *testing.T, url, name string) float64 {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}
