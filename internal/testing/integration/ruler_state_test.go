package integration

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/server"
	"github.com/vloki/vloki/internal/testing/vltest"
)

// Alert state across restarts and keep_firing_for (reference
// loki-ruler.md §2; vloki's departures in docs/ruler.md). Each test runs
// vloki over the embedded engine, and restarts it over the same rule and
// state directories.

// rulerNode is a vloki process (in-process) that can be restarted.
type rulerNode struct {
	cfg config.Config
	tg  target
	app *server.App
	srv *httptest.Server
}

func newRulerNode(t *testing.T, change func(*config.Ruler)) *rulerNode {
	t.Helper()
	cfg := config.Default()
	cfg.Auth.Enabled = true
	cfg.Ruler.Storage.Local.Directory, cfg.Ruler.AlertStateDir = t.TempDir(), t.TempDir()
	cfg.Ruler.EnableEvaluation, cfg.Ruler.EvaluationInterval = true, time.Second
	change(&cfg.Ruler)
	n := &rulerNode{cfg: cfg}
	n.start(t)
	t.Cleanup(n.stop)
	return n
}

func (n *rulerNode) start(t *testing.T) {
	t.Helper()
	emb, err := vltest.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	n.app, err = server.Assemble(n.cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New(), emb, "embedded", func() {})
	if err != nil {
		t.Fatal(err)
	}
	n.srv = newServer(n.app.Handler())
	n.tg = target{name: "embedded", url: n.srv.URL, vl: emb}
}

// stop ends the evaluations (the alert state is saved) and the server.
func (n *rulerNode) stop() {
	if n.app != nil {
		n.srv.Close()
		n.app.Close()
		n.app = nil
	}
}

func (n *rulerNode) restart(t *testing.T) {
	t.Helper()
	n.stop()
	n.start(t)
}

// rule is the tenant's one rule in /prometheus/api/v1/rules.
func (n *rulerNode) rule(t *testing.T, tenant string) (evalRule, bool) {
	t.Helper()
	r := n.tg.rulerDo(t, "GET", "/prometheus/api/v1/rules", tenant, "")
	var body struct {
		Data struct {
			Groups []evalGroup `json:"groups"`
		} `json:"data"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &body) != nil {
		t.Fatalf("rules: %d %s", r.status, r.body)
	}
	if len(body.Data.Groups) != 1 || len(body.Data.Groups[0].Rules) != 1 {
		return evalRule{}, false
	}
	return body.Data.Groups[0].Rules[0], true
}

// waitRule polls the rule every 20ms until ok says so.
func (n *rulerNode) waitRule(t *testing.T, tenant, what string, within time.Duration, ok func(evalRule) bool) evalRule {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if r, found := n.rule(t, tenant); found && ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			r, _ := n.rule(t, tenant)
			t.Fatalf("%s: not in %v; rule %+v", what, within, r)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func evaluated(r evalRule) bool { return r.Health != "unknown" }

func firingAlert(r evalRule) bool { return len(r.Alerts) == 1 && r.Alerts[0].State == "firing" }

// TestRulerFiringSurvivesRestart: with -ruler.persist-alert-state (the
// default), a firing alert is firing again at the first evaluation after
// a restart, with the same activeAt, and Alertmanager gets the same
// startsAt. Its for (2s) is under for_grace_period, so Loki's restore
// would not apply: the alert would start pending again.
func TestRulerFiringSurvivesRestart(t *testing.T) {
	am := &amCapture{}
	amSrv := httptest.NewServer(am)
	t.Cleanup(amSrv.Close)
	n := newRulerNode(t, func(r *config.Ruler) { r.AlertmanagerURL = amSrv.URL })
	ten := "ruler-survives"
	now := time.Now()
	n.tg.pushJSON(t, ten, jsonPush(map[string]string{"app": "survives"}, entry{ns(now.Add(-10 * time.Second)), "a"}))
	group := "name: g\nrules:\n  - alert: Survives\n    expr: sum(count_over_time({app=\"survives\"}[1h])) > 0\n    for: 2s\n    labels:\n      severity: page\n"
	expectAnswer(t, "create", n.tg.rulerDo(t, "POST", "/loki/api/v1/rules/ns", ten, group), 202, appJSON, accepted)
	before := n.waitRule(t, ten, "firing", 20*time.Second, firingAlert).Alerts[0]
	startsAt := func(since time.Time) string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			for _, p := range am.since(since) {
				if p.tenant == ten && len(p.alerts) == 1 {
					s, _ := p.alerts[0]["startsAt"].(string)
					return s
				}
			}
			if time.Now().After(deadline) {
				t.Fatal("nothing posted to Alertmanager")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	sentBefore := startsAt(now)

	restarted := time.Now()
	n.restart(t)
	after := n.waitRule(t, ten, "evaluated after the restart", 10*time.Second, evaluated)
	if !firingAlert(after) || !after.Alerts[0].ActiveAt.Equal(*before.ActiveAt) {
		t.Fatalf("first evaluation after the restart: %+v, before %+v (activeAt %v)", after.Alerts, before, before.ActiveAt)
	}
	if sentAfter := startsAt(restarted); sentAfter != sentBefore {
		t.Errorf("startsAt after the restart %s, before %s", sentAfter, sentBefore)
	}
}

// TestRulerRestoresForStateAsLoki: without the saved state, an alert
// whose for is at least for_grace_period has its for state restored as
// Loki's ruler restores it: its query, run at restore − for, held, so
// activeAt becomes that instant (whole seconds) and the alert fires at
// the next evaluation instead of after a whole for.
func TestRulerRestoresForStateAsLoki(t *testing.T) {
	n := newRulerNode(t, func(r *config.Ruler) {
		r.PersistAlertState, r.ForGracePeriod = false, time.Second
	})
	ten := "ruler-loki-restore"
	now := time.Now()
	n.tg.pushJSON(t, ten, jsonPush(map[string]string{"app": "restore"}, entry{ns(now.Add(-time.Minute)), "a"}))
	group := "name: g\nrules:\n  - alert: Restored\n    expr: sum(count_over_time({app=\"restore\"}[1h])) > 0\n    for: 8s\n"
	expectAnswer(t, "create", n.tg.rulerDo(t, "POST", "/loki/api/v1/rules/ns", ten, group), 202, appJSON, accepted)
	n.waitRule(t, ten, "firing", 20*time.Second, firingAlert)

	n.restart(t)
	first := n.waitRule(t, ten, "evaluated after the restart", 10*time.Second, evaluated)
	if len(first.Alerts) != 1 || first.Alerts[0].State != "pending" {
		t.Fatalf("first evaluation after the restart: %+v", first.Alerts)
	}
	pendingSince := *first.Alerts[0].ActiveAt
	fired := n.waitRule(t, ten, "firing again", 20*time.Second, firingAlert)
	activeAt := *fired.Alerts[0].ActiveAt
	// Restored to restore − for: before the first evaluation, on a whole
	// second; firing about two evaluations after the restart, not 8s.
	if !activeAt.Before(pendingSince) || !activeAt.Equal(activeAt.Truncate(time.Second)) {
		t.Errorf("active at %v; pending since %v", activeAt, pendingSince)
	}
	if took := fired.LastEvaluation.Sub(pendingSince); took >= 8*time.Second {
		t.Errorf("fired %v after the first evaluation, not restored", took)
	}
}

// TestRulerKeepFiringFor: an alert with keep_firing_for stays firing
// that long after its condition stops holding (Loki drops the field,
// loki#7450).
func TestRulerKeepFiringFor(t *testing.T) {
	n := newRulerNode(t, func(*config.Ruler) {})
	ten := "ruler-keep-firing"
	group := "name: g\nrules:\n  - alert: Kept\n    expr: sum(count_over_time({app=\"kept\"}[3s])) > 0\n    keep_firing_for: 5s\n"
	expectAnswer(t, "create", n.tg.rulerDo(t, "POST", "/loki/api/v1/rules/ns", ten, group), 202, appJSON, accepted)
	r := n.tg.rulerDo(t, "GET", "/loki/api/v1/rules/ns/g", ten, "")
	if r.status != 200 || string(r.body) != "name: g\nrules:\n    - alert: Kept\n      expr: sum(count_over_time({app=\"kept\"}[3s])) > 0\n      keep_firing_for: 5s\n" {
		t.Errorf("group read back: %d %s", r.status, r.body)
	}
	pushed := time.Now()
	n.tg.pushJSON(t, ten, jsonPush(map[string]string{"app": "kept"}, entry{ns(pushed), "a"}))
	n.waitRule(t, ten, "firing", 10*time.Second, firingAlert)
	// The line leaves the 3s window at pushed+3s: the alert is kept
	// until about pushed+3s+5s.
	time.Sleep(time.Until(pushed.Add(6 * time.Second)))
	if rl, _ := n.rule(t, ten); !firingAlert(rl) || rl.LastEvaluation.Before(pushed.Add(5*time.Second)) {
		t.Fatalf("3s after the condition cleared: %+v", rl)
	}
	n.waitRule(t, ten, "resolved", 10*time.Second, func(r evalRule) bool { return len(r.Alerts) == 0 })
	if since := time.Since(pushed); since < 8*time.Second {
		t.Errorf("resolved %v after the push, keep_firing_for 5s after a 3s window", since)
	}
}
