package eval

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
)

// queryCalls is a fake rules.QueryFunc that notes its calls.
type queryCalls struct {
	mu    sync.Mutex
	calls []string // "<expr>@<unix ms>"
	res   promql.Vector
	err   error
}

func (q *queryCalls) query(_ context.Context, expr string, ts time.Time) (promql.Vector, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls = append(q.calls, expr+"@"+ts.Format(time.RFC3339Nano))
	if q.err != nil {
		return nil, q.err
	}
	out := make(promql.Vector, len(q.res))
	for i, s := range q.res {
		out[i] = promql.Sample{Metric: s.Metric, F: s.F, T: ts.UnixMilli()}
	}
	return out, nil
}

func (q *queryCalls) count() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.calls)
}

func indexOf(rs ...rulefmt.Rule) *ruleIndex {
	ix := &ruleIndex{}
	ix.set(map[string]*rulefmt.RuleGroups{"f": {Groups: []rulefmt.RuleGroup{{Name: "g", Rules: rs}}}}, []string{"f"})
	return ix
}

func eq(name, value string) *labels.Matcher {
	return labels.MustNewMatcher(labels.MatchEqual, name, value)
}

// onlySeries is the one series of a set, or fails.
func onlySeries(t *testing.T, ss storage.SeriesSet) (labels.Labels, int64, float64) {
	t.Helper()
	if !ss.Next() {
		t.Fatal("no series")
	}
	s := ss.At()
	it := s.Iterator(nil)
	if it.Next() != chunkenc.ValFloat {
		t.Fatal("no sample")
	}
	ts, v := it.At()
	if it.Next() != chunkenc.ValNone || ss.Next() {
		t.Fatal("more than one sample or series")
	}
	return s.Labels(), ts, v
}

// TestForStateSynthesisedAsLoki: the rule's query at maxt − for; one
// ALERTS_FOR_STATE series per sample, at maxt, valued maxt − for in
// seconds; only the series equal to the matchers is answered.
func TestForStateSynthesisedAsLoki(t *testing.T) {
	q := &queryCalls{res: promql.Vector{{Metric: labels.EmptyLabels()}, {Metric: labels.FromStrings("app", "x")}}}
	fs := &forStateQueryable{query: q.query, log: quiet(), rules: indexOf(
		rulefmt.Rule{Record: "R", Expr: "rec"},
		rulefmt.Rule{Alert: "A", Expr: `sum(count_over_time({app="x"}[5m])) > 0`, For: model.Duration(time.Minute)},
		rulefmt.Rule{Alert: "A", Expr: "second of the name", For: model.Duration(time.Hour)})}
	maxt := time.UnixMilli(1_700_000_000_250)
	querier, err := fs.Querier(maxt.Add(-time.Hour).UnixMilli(), maxt.UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	ls, ts, v := onlySeries(t, querier.Select(context.Background(), false, nil, eq("__name__", "ALERTS_FOR_STATE"), eq("alertname", "A")))
	if ls.String() != `{__name__="ALERTS_FOR_STATE", alertname="A"}` || ts != maxt.UnixMilli() || v != float64(maxt.Add(-time.Minute).Unix()) {
		t.Errorf("series %s %d %v", ls, ts, v)
	}
	// The first rule of the name, queried once at maxt − for.
	if len(q.calls) != 1 || q.calls[0] != `sum(count_over_time({app="x"}[5m])) > 0@`+maxt.Add(-time.Minute).Format(time.RFC3339Nano) {
		t.Errorf("queries %v", q.calls)
	}
	ls, _, _ = onlySeries(t, querier.Select(context.Background(), false, nil, eq("__name__", "ALERTS_FOR_STATE"), eq("alertname", "A"), eq("app", "x")))
	if ls.String() != `{__name__="ALERTS_FOR_STATE", alertname="A", app="x"}` {
		t.Errorf("series %s", ls)
	}
	// The rule's labels are among the matchers, not in the series: none
	// (Loki's behaviour). The answer is cached: no query.
	if querier.Select(context.Background(), false, nil, eq("__name__", "ALERTS_FOR_STATE"), eq("alertname", "A"), eq("severity", "page")).Next() {
		t.Error("a series for matchers the synthesised series lack")
	}
	if q.count() != 1 {
		t.Errorf("%d queries, want 1 (cached)", q.count())
	}
	for _, ms := range [][]*labels.Matcher{{eq("__name__", "ALERTS_FOR_STATE")}, {eq("alertname", "R")}, {eq("alertname", "unknown")}} {
		if querier.Select(context.Background(), false, nil, ms...).Next() {
			t.Errorf("a series for %v", ms)
		}
	}
	// A failed query answers nothing and is not cached.
	q.err = errors.New("boom")
	querier, _ = fs.Querier(0, maxt.Add(time.Second).UnixMilli())
	for range 2 {
		if querier.Select(context.Background(), false, nil, eq("alertname", "A")).Next() {
			t.Error("a series after a failed query")
		}
	}
	if q.count() != 3 {
		t.Errorf("%d queries, want 3", q.count())
	}
	// Alerts restored from the saved state are left alone.
	q.err = nil
	fs.skip = func(ls labels.Labels) bool { return ls.String() == `{alertname="A"}` }
	querier, _ = fs.Querier(0, maxt.Add(2*time.Second).UnixMilli())
	if querier.Select(context.Background(), false, nil, eq("__name__", "ALERTS_FOR_STATE"), eq("alertname", "A")).Next() {
		t.Error("a series for an alert restored otherwise")
	}
}

// testGroup is one group of alerting rules run by Prometheus' rules
// package over q, restored through Loki's MemStore behaviour.
func testGroup(q rules.QueryFunc, grace time.Duration, rs ...rulefmt.Rule) *rules.Group {
	var alerting []rules.Rule
	for _, r := range rs {
		e, err := (&loader{}).Parse(r.Expr)
		if err != nil {
			panic(err)
		}
		alerting = append(alerting, rules.NewAlertingRule(r.Alert, e, time.Duration(r.For), time.Duration(r.KeepFiringFor),
			labels.FromMap(r.Labels), labels.EmptyLabels(), labels.EmptyLabels(), "", false, quiet()))
	}
	fs := &forStateQueryable{query: q, log: quiet(), rules: indexOf(rs...)}
	return rules.NewGroup(rules.GroupOptions{Name: "g", File: "f", Interval: time.Minute, Rules: alerting, ShouldRestore: true,
		Opts: &rules.ManagerOptions{QueryFunc: q, Queryable: fs, Appendable: discard{}, Context: context.Background(),
			NotifyFunc: func(context.Context, string, ...*rules.Alert) {}, ForGracePeriod: grace, OutageTolerance: time.Hour,
			Logger: quiet(), Metrics: rules.NewGroupMetrics(nil)}})
}

// activeAt is the one alert of the named rule.
func activeAt(t *testing.T, g *rules.Group, rule string) (time.Time, rules.AlertState) {
	t.Helper()
	for _, r := range g.AlertingRules() {
		if r.Name() != rule {
			continue
		}
		as := r.ActiveAlerts()
		if len(as) != 1 {
			t.Fatalf("rule %s: %d alerts", rule, len(as))
		}
		return as[0].ActiveAt, as[0].State
	}
	t.Fatalf("no rule %s", rule)
	return time.Time{}, 0
}

// TestRestoreForStateAsLoki: after a restart, Prometheus'
// RestoreForState over the MemStore behaviour gives an alert whose query
// held at restore − for that instant (whole seconds) as activeAt, so it
// fires at the next evaluation. Rules whose for is under the grace
// period, and alerts carrying rule labels, start over.
func TestRestoreForStateAsLoki(t *testing.T) {
	q := &queryCalls{res: promql.Vector{{Metric: labels.EmptyLabels(), F: 1}}}
	expr := `sum(count_over_time({app="x"}[5m])) > 0`
	g := testGroup(q.query, 5*time.Minute,
		rulefmt.Rule{Alert: "Restored", Expr: expr, For: model.Duration(10 * time.Minute)},
		rulefmt.Rule{Alert: "Labelled", Expr: expr, For: model.Duration(10 * time.Minute), Labels: map[string]string{"severity": "page"}},
		rulefmt.Rule{Alert: "Short", Expr: expr, For: model.Duration(time.Minute)})
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	g.Eval(context.Background(), t0)
	g.Eval(context.Background(), t0.Add(time.Minute))
	restoreAt := t0.Add(time.Minute + 1500*time.Millisecond)
	g.RestoreForState(restoreAt)

	want := restoreAt.Add(-10 * time.Minute).Truncate(time.Second)
	if at, st := activeAt(t, g, "Restored"); !at.Equal(want) || st != rules.StatePending {
		t.Errorf("restored: active at %v (%v), want %v", at, st, want)
	}
	for _, name := range []string{"Labelled", "Short"} {
		if at, _ := activeAt(t, g, name); !at.Equal(t0) {
			t.Errorf("%s restored: active at %v", name, at)
		}
	}
	g.Eval(context.Background(), t0.Add(2*time.Minute))
	if _, st := activeAt(t, g, "Restored"); st != rules.StateFiring {
		t.Errorf("restored alert %v at the next evaluation, want firing", st)
	}
	if _, st := activeAt(t, g, "Labelled"); st != rules.StatePending {
		t.Errorf("labelled alert %v, want pending", st)
	}
}
