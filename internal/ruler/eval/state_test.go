package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/rules"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/ruler/rulestore"
)

// switchEngine answers every instant query with its current result and
// notes the instants asked.
type switchEngine struct {
	mu      sync.Mutex
	res     *engine.Result
	times   []time.Time
	tenants []tenant.ID
}

func (s *switchEngine) Instant(_ context.Context, t tenant.ID, req engine.InstantRequest) (*engine.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.times, s.tenants = append(s.times, req.Time), append(s.tenants, t)
	return s.res, nil
}

func (s *switchEngine) set(res *engine.Result) {
	s.mu.Lock()
	s.res = res
	s.mu.Unlock()
}

func emptyVector() *engine.Result {
	return &engine.Result{Metric: &metric.Result{Kind: metric.Vector}}
}

// stateFixture is a tenant t1's group g in namespace ns, with the
// options' defaults for these tests.
type stateFixture struct {
	store *rulestore.Store
	dir   string
}

func newStateFixture(t *testing.T, g rulestore.Group) stateFixture {
	t.Helper()
	store, err := rulestore.Open(t.TempDir(), false, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetGroup("t1", "ns", g); err != nil {
		t.Fatal(err)
	}
	return stateFixture{store: store, dir: t.TempDir()}
}

func (f stateFixture) start(t *testing.T, e Engine, change func(*Options)) *Evaluator {
	t.Helper()
	o := Options{Store: f.store, Engine: e, Tenant: func(string) tenant.ID { return tenant.ID{} }, RulePath: "/rules",
		EvaluationInterval: 100 * time.Millisecond, PollInterval: time.Hour, ResendDelay: time.Minute,
		ForGracePeriod: time.Minute, OutageTolerance: time.Hour, Log: quiet(), AlertStateDir: f.dir}
	if change != nil {
		change(&o)
	}
	ev := New(o)
	ev.Start()
	return ev
}

func (f stateFixture) file() string { return filepath.Join(f.dir, "t1.json") }

func (f stateFixture) seed(t *testing.T, gs ...savedGroup) {
	t.Helper()
	b, _ := json.Marshal(savedState{Groups: gs})
	if err := os.WriteFile(f.file(), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstEvaluated waits for the rule's first evaluation and returns its
// alerts then.
func firstEvaluated(t *testing.T, ev *Evaluator) []*rules.Alert {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if rs := ev.AlertingRules("t1"); len(rs) == 1 && !rs[0].GetEvaluationTimestamp().IsZero() {
			return rs[0].ActiveAlerts()
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("not evaluated")
	return nil
}

func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not in time", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

const pageExpr = `sum(count_over_time({app="x"}[5m])) > 0`

// TestAlertStateSurvivesRestart: a firing alert is saved, and firing
// again at the first evaluation of the next evaluator, with its activeAt
// and firedAt.
func TestAlertStateSurvivesRestart(t *testing.T) {
	f := newStateFixture(t, rulestore.Group{Name: "g", Rules: []rulestore.Rule{
		{Alert: "A", Expr: pageExpr, Labels: map[string]string{"severity": "page"}}}})
	e := &switchEngine{res: vectorResult(5)}
	ev := f.start(t, e, nil)
	var before *rules.Alert
	until(t, "firing", func() bool {
		for _, r := range ev.AlertingRules("t1") {
			for _, a := range r.ActiveAlerts() {
				if a.State == rules.StateFiring {
					before = a
				}
			}
		}
		return before != nil
	})
	ev.Stop()
	var st savedState
	b, err := os.ReadFile(f.file())
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil || len(st.Groups) != 1 || len(st.Groups[0].Alerts) != 1 {
		t.Fatalf("saved %s: %v", b, err)
	}
	if a := st.Groups[0].Alerts[0]; a.Rule != "A" || a.State != "firing" || a.Value != "5" || !a.ActiveAt.Equal(before.ActiveAt) ||
		a.Labels["severity"] != "page" || a.RuleLabels["severity"] != "page" {
		t.Errorf("saved alert %+v", a)
	}

	ev = f.start(t, e, nil)
	defer ev.Stop()
	as := firstEvaluated(t, ev)
	if len(as) != 1 || as[0].State != rules.StateFiring || !as[0].ActiveAt.Equal(before.ActiveAt) || !as[0].FiredAt.Equal(before.FiredAt) ||
		as[0].Labels.String() != before.Labels.String() {
		t.Fatalf("after the restart: %+v, before %+v", as, before)
	}
}

// TestSavedAlertsResumed: saved alerts come back as saved (firing with
// its keep-firing time while the condition no longer holds), unless the
// group's last evaluation is older than the outage tolerance.
func TestSavedAlertsResumed(t *testing.T) {
	f := newStateFixture(t, rulestore.Group{Name: "g", Rules: []rulestore.Rule{
		{Alert: "A", Expr: pageExpr, For: model.Duration(10 * time.Minute), KeepFiringFor: model.Duration(time.Hour)}}})
	now := time.Now().UTC().Truncate(time.Millisecond)
	firing := savedAlert{Rule: "A", Labels: map[string]string{"alertname": "A"}, Annotations: map[string]string{"s": "saved"}, State: "firing",
		Value: "7", ActiveAt: now.Add(-time.Hour), FiredAt: now.Add(-50 * time.Minute), KeepFiringSince: now.Add(-time.Minute)}
	group := savedGroup{File: GroupFile("/rules", "t1", "ns"), Name: "g", EvaluatedAt: now.Add(-2 * time.Second), Alerts: []savedAlert{firing}}
	f.seed(t, group)
	e := &switchEngine{res: emptyVector()}
	ev := f.start(t, e, nil)
	as := firstEvaluated(t, ev)
	ev.Stop()
	if len(as) != 1 || as[0].State != rules.StateFiring || !as[0].ActiveAt.Equal(firing.ActiveAt) || !as[0].FiredAt.Equal(firing.FiredAt) ||
		!as[0].KeepFiringSince.Equal(firing.KeepFiringSince) || as[0].Value != 7 || as[0].Annotations.Get("s") != "saved" {
		t.Fatalf("restored %+v", as)
	}

	// Older than for_outage_tolerance: the alert starts over.
	group.EvaluatedAt = now.Add(-2 * time.Hour)
	f.seed(t, group)
	e.set(vectorResult(5))
	ev = f.start(t, e, nil)
	defer ev.Stop()
	as = firstEvaluated(t, ev)
	if len(as) != 1 || as[0].State != rules.StatePending || as[0].ActiveAt.Before(now) {
		t.Fatalf("after a long outage %+v", as)
	}
}

// TestStateRemovedWithTheRules: a tenant without active alerts, or
// left without rules, has no saved alerts.
func TestStateRemovedWithTheRules(t *testing.T) {
	f := newStateFixture(t, rulestore.Group{Name: "g", Rules: []rulestore.Rule{{Alert: "A", Expr: pageExpr}}})
	e := &switchEngine{res: vectorResult(5)}
	ev := f.start(t, e, nil)
	defer ev.Stop()
	saved := func() bool { _, err := os.Stat(f.file()); return err == nil }
	until(t, "saved", saved)
	e.set(emptyVector())
	until(t, "removed once resolved", func() bool { return !saved() })
	e.set(vectorResult(5))
	until(t, "saved again", saved)
	if err := f.store.DeleteNamespace("t1", "ns"); err != nil {
		t.Fatal(err)
	}
	ev.Sync()
	if _, err := os.Stat(f.file()); !os.IsNotExist(err) {
		t.Errorf("state file after the rules went: %v", err)
	}
}

// TestResumePending: a pending alert resumes as Prometheus'
// RestoreForState resumes one.
func TestResumePending(t *testing.T) {
	s := &alertState{gracePeriod: time.Minute}
	downAt := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := downAt.Add(5 * time.Minute)
	for _, c := range []struct {
		hold, pendingFor time.Duration
		ok               bool
		activeAt         time.Time
	}{
		{hold: 30 * time.Second, pendingFor: 10 * time.Second},                                                    // for under the grace period
		{hold: 10 * time.Minute, pendingFor: 11 * time.Minute, ok: true, activeAt: downAt.Add(-11 * time.Minute)}, // due: fires next
		{hold: 10 * time.Minute, pendingFor: 9*time.Minute + 30*time.Second, ok: true, activeAt: ts.Add(time.Minute - 10*time.Minute)},
		{hold: 10 * time.Minute, pendingFor: 4 * time.Minute, ok: true, activeAt: ts.Add(-4 * time.Minute)}, // moved by the outage
	} {
		a, ok := s.resume(savedAlert{State: "pending", ActiveAt: downAt.Add(-c.pendingFor)}, c.hold, downAt, ts)
		if ok != c.ok || (ok && !a.ActiveAt.Equal(c.activeAt)) {
			t.Errorf("hold %v pending %v: %v %v, want %v %v", c.hold, c.pendingFor, a.ActiveAt, ok, c.activeAt, c.ok)
		}
	}
	if _, ok := s.resume(savedAlert{State: "inactive"}, time.Hour, downAt, ts); ok {
		t.Error("an inactive alert resumed")
	}
}

// TestKeepFiringFor: the alert stays firing for keep_firing_for after
// its condition clears, then resolves.
func TestKeepFiringFor(t *testing.T) {
	f := newStateFixture(t, rulestore.Group{Name: "g", Rules: []rulestore.Rule{
		{Alert: "A", Expr: pageExpr, KeepFiringFor: model.Duration(time.Second)}}})
	e := &switchEngine{res: vectorResult(5)}
	ev := f.start(t, e, func(o *Options) { o.AlertStateDir = "" })
	defer ev.Stop()
	state := func() (rules.AlertState, time.Time) {
		for _, r := range ev.AlertingRules("t1") {
			for _, a := range r.ActiveAlerts() {
				return a.State, a.KeepFiringSince
			}
		}
		return rules.StateInactive, time.Time{}
	}
	until(t, "firing", func() bool { s, _ := state(); return s == rules.StateFiring })
	cleared := time.Now()
	e.set(emptyVector())
	until(t, "keeping", func() bool { _, since := state(); return !since.IsZero() })
	if s, _ := state(); s != rules.StateFiring {
		t.Fatalf("%v after the condition cleared", s)
	}
	until(t, "resolved", func() bool { s, _ := state(); return s == rules.StateInactive })
	if kept := time.Since(cleared); kept < time.Second {
		t.Errorf("resolved %v after the condition cleared, keep_firing_for 1s", kept)
	}
}

// TestQueryOffset: queries run at the slot minus the group's
// query_offset, or minus ruler.query_offset for groups that set none.
func TestQueryOffset(t *testing.T) {
	five := model.Duration(5 * time.Second)
	store, err := rulestore.Open(t.TempDir(), false, quiet())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []rulestore.Group{{Name: "own", QueryOffset: &five, Rules: []rulestore.Rule{{Record: "r", Expr: pageExpr}}}} {
		if err := store.SetGroup("t1", "ns", g); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.SetGroup("t2", "ns", rulestore.Group{Name: "global", Rules: []rulestore.Rule{{Record: "r", Expr: pageExpr}}}); err != nil {
		t.Fatal(err)
	}
	e := &switchEngine{res: vectorResult(1)}
	iv := 100 * time.Millisecond
	ids := map[string]uint32{"t1": 1, "t2": 2}
	ev := New(Options{Store: store, Engine: e, Tenant: func(n string) tenant.ID { return tenant.ID{AccountID: ids[n]} }, RulePath: "/rules",
		EvaluationInterval: iv, PollInterval: time.Hour, Log: quiet(), QueryOffset: 30 * time.Second})
	ev.Start()
	first := func(id uint32) (time.Time, bool) {
		e.mu.Lock()
		defer e.mu.Unlock()
		for i, tn := range e.tenants {
			if tn.AccountID == id {
				return e.times[i], true
			}
		}
		return time.Time{}, false
	}
	until(t, "evaluated", func() bool { _, ok1 := first(1); _, ok2 := first(2); return ok1 && ok2 })
	ev.Stop()
	for tenant, c := range map[string]struct {
		group  string
		offset time.Duration
	}{"t1": {"own", 5 * time.Second}, "t2": {"global", 30 * time.Second}} {
		at, _ := first(ids[tenant])
		slot := time.Duration(at.Add(c.offset).UnixNano() % int64(iv))
		if want := SlotOffset("/rules", tenant, "ns", c.group, iv); slot != want || time.Since(at) < c.offset {
			t.Errorf("%s queried at %v (+offset: %v into its interval, slot %v)", tenant, at, slot, want)
		}
	}
}
