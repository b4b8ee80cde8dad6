package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/rules"

	"github.com/vloki/vloki/internal/storage/atomicfile"
)

// vloki keeps each tenant's pending and firing alerts in
// <dir>/<tenant>.json (Loki keeps nothing: after a restart its alerts
// start over, or are re-derived from their query, see restore.go). The
// file is rewritten after a group evaluation that changed an alert's
// state, and at least every stateRefresh, so that it tells when each
// group last ran; a tenant without active alerts has no file. When a
// tenant's manager starts, each group's first
// evaluation begins with its saved alerts: a firing alert is firing
// again with its activeAt, firedAt (the notification's startsAt) and
// keep-firing time; a pending one keeps its progress towards firing,
// shifted by the outage as Prometheus' RestoreForState does. A group
// whose last evaluation is older than for_outage_tolerance starts over.

// maxSavedAlerts bounds a tenant's file.
const maxSavedAlerts = 10000

// stateRefresh is how stale a group's saved evaluation time may get
// while nothing changes (shorter with a shorter outage tolerance).
const stateRefresh = time.Minute

type savedState struct {
	Groups []savedGroup `json:"groups"`
}

type savedGroup struct {
	File string `json:"file"`
	Name string `json:"name"`
	// EvaluatedAt is the group's last evaluation (its slot).
	EvaluatedAt time.Time    `json:"evaluatedAt"`
	Alerts      []savedAlert `json:"alerts"`
}

type savedAlert struct {
	// Rule and RuleLabels identify the alerting rule in its group, as
	// Prometheus matches rules across reloads (name and labels).
	Rule        string            `json:"rule"`
	RuleLabels  map[string]string `json:"ruleLabels,omitempty"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations,omitempty"`
	State       string            `json:"state"`
	// Value is the 'g' text of the last value (NaN and Inf included).
	Value           string    `json:"value"`
	ActiveAt        time.Time `json:"activeAt"`
	FiredAt         time.Time `json:"firedAt"`
	KeepFiringSince time.Time `json:"keepFiringSince"`
}

// same tells whether two snapshots differ in more than values and
// annotations (which change at every evaluation).
func (g savedGroup) same(o savedGroup) bool {
	if len(g.Alerts) != len(o.Alerts) {
		return false
	}
	for i, a := range g.Alerts {
		b := o.Alerts[i]
		if a.Rule != b.Rule || a.State != b.State || !a.ActiveAt.Equal(b.ActiveAt) || !a.FiredAt.Equal(b.FiredAt) ||
			!a.KeepFiringSince.Equal(b.KeepFiringSince) || !maps.Equal(a.Labels, b.Labels) ||
			!maps.Equal(a.RuleLabels, b.RuleLabels) {
			return false
		}
	}
	return true
}

// alertState keeps one tenant's alerts across restarts.
type alertState struct {
	path            string
	outageTolerance time.Duration
	gracePeriod     time.Duration
	log             *slog.Logger

	mu sync.Mutex
	// saved: the groups read at start, each taken by its first
	// evaluation. current: the last evaluation of each group; written:
	// what the file holds.
	saved    map[string]savedGroup
	current  map[string]savedGroup
	written  map[string]savedGroup
	lastSave time.Time
	// restored: the labels of alerts restored from the file, which
	// Loki's re-evaluation must leave alone.
	restored map[string]bool
	dirty    bool
}

// stateFile is the tenant's file under dir.
func stateFile(dir, tenant string) (string, error) {
	if tenant == "" || strings.ContainsAny(tenant, `/\`) || tenant == "." || tenant == ".." {
		return "", fmt.Errorf("invalid tenant %q", tenant)
	}
	return filepath.Join(dir, tenant+".json"), nil
}

// openState reads the tenant's saved alerts (none when the file is
// missing or unreadable: the alerts start over, as in Loki).
func openState(dir, tenant string, outageTolerance, gracePeriod time.Duration, log *slog.Logger) (*alertState, error) {
	path, err := stateFile(dir, tenant)
	if err != nil {
		return nil, err
	}
	s := &alertState{path: path, outageTolerance: outageTolerance, gracePeriod: gracePeriod, log: log,
		saved: map[string]savedGroup{}, current: map[string]savedGroup{}, written: map[string]savedGroup{}, restored: map[string]bool{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	var st savedState
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		log.Warn("ruler: alert state not read; alerts start over", "file", path, "err", err)
		return s, nil
	}
	for _, g := range st.Groups {
		key := rules.GroupKey(g.File, g.Name)
		s.saved[key], s.current[key], s.written[key] = g, g, g
	}
	return s, nil
}

// iterate is the group's evaluation (Prometheus' default) with the
// saved alerts restored before the first one and the alerts saved after
// each.
func (s *alertState) iterate(ctx context.Context, g *rules.Group, ts time.Time) {
	s.restore(ctx, g, ts)
	rules.DefaultEvalIterationFunc(ctx, g, ts)
	s.record(g, ts)
}

// loaded is called after each load of the tenant's rules: groups gone
// are forgotten. Only groups of the manager's first load can be
// restored (Prometheus restores only then): later loads add no saved
// groups, they only drop some.
func (s *alertState) loaded(groups []*rules.Group) {
	keys := map[string]bool{}
	for _, g := range groups {
		keys[rules.GroupKey(g.File(), g.Name())] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.saved {
		if !keys[k] {
			delete(s.saved, k)
		}
	}
	for k := range s.current {
		if !keys[k] {
			delete(s.current, k)
			s.dirty = true
		}
	}
}

// take returns the group's saved alerts once, when recent enough.
func (s *alertState) take(key string, ts time.Time) (savedGroup, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.saved[key]
	delete(s.saved, key)
	if !ok || len(g.Alerts) == 0 {
		return savedGroup{}, false
	}
	if ts.Sub(g.EvaluatedAt) > s.outageTolerance {
		s.log.Info("ruler: saved alerts older than for_outage_tolerance; they start over", "group", key, "evaluated_at", g.EvaluatedAt)
		return savedGroup{}, false
	}
	return g, true
}

// isRestored tells whether an alert (labels without __name__) came from
// the file.
func (s *alertState) isRestored(ls labels.Labels) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restored[ls.String()]
}

// restore puts the group's saved alerts back into its alerting rules
// before the group's first evaluation at ts.
func (s *alertState) restore(ctx context.Context, g *rules.Group, ts time.Time) {
	saved, ok := s.take(rules.GroupKey(g.File(), g.Name()), ts)
	if !ok {
		return
	}
	byRule := map[string][]savedAlert{}
	for _, a := range saved.Alerts {
		k := ruleKey(a.Rule, labels.FromMap(a.RuleLabels))
		byRule[k] = append(byRule[k], a)
	}
	for _, r := range g.Rules() {
		ar, ok := r.(*rules.AlertingRule)
		if !ok {
			continue
		}
		k := ruleKey(ar.Name(), ar.Labels())
		alerts := byRule[k]
		delete(byRule, k) // a second rule of the same name and labels starts over
		if n := s.restoreRule(ctx, ar, alerts, saved.EvaluatedAt, ts); n > 0 {
			s.log.Info("ruler: alerts restored", "group", g.Name(), "rule", ar.Name(), "alerts", n)
		}
	}
}

func ruleKey(name string, ls labels.Labels) string { return name + ls.String() }

// restoreRule makes the rule's saved alerts active again and returns
// how many. The rule's own evaluation creates them (from a query
// answering their labels), so that their labels are the rule's; each is
// then given its saved state. An alert whose labels the rule no longer
// produces is left pending since ts, as a new one.
func (s *alertState) restoreRule(ctx context.Context, ar *rules.AlertingRule, alerts []savedAlert, downAt, ts time.Time) int {
	want := map[string]savedAlert{}
	var vec promql.Vector
	for _, a := range alerts {
		a, ok := s.resume(a, ar.HoldDuration(), downAt, ts)
		if !ok {
			continue
		}
		ls := labels.FromMap(a.Labels)
		want[ls.String()] = a
		v, _ := strconv.ParseFloat(a.Value, 64)
		vec = append(vec, promql.Sample{Metric: ls, F: v, T: ts.UnixMilli()})
	}
	if len(vec) == 0 {
		return 0
	}
	answer := func(context.Context, string, time.Time) (promql.Vector, error) { return vec, nil }
	if _, err := ar.Eval(ctx, 0, ts, answer, nil, 0); err != nil {
		s.log.Warn("ruler: alerts not restored", "rule", ar.Name(), "err", err)
		return 0
	}
	n := 0
	s.mu.Lock()
	defer s.mu.Unlock()
	ar.ForEachActiveAlert(func(a *rules.Alert) {
		sa, ok := want[a.Labels.String()]
		if !ok {
			a.State, a.ActiveAt, a.FiredAt = rules.StatePending, ts, time.Time{}
			return
		}
		a.ActiveAt, a.FiredAt, a.KeepFiringSince = sa.ActiveAt, sa.FiredAt, sa.KeepFiringSince
		a.State = rules.StatePending
		if sa.State == rules.StateFiring.String() {
			a.State = rules.StateFiring
		}
		a.Annotations = labels.FromMap(sa.Annotations)
		s.restored[a.Labels.String()] = true
		n++
	})
	return n
}

// resume is a saved alert as it resumes at ts after being saved at
// downAt. A firing alert is unchanged. A pending one is shifted as
// Prometheus' RestoreForState shifts it: not restored when the rule's
// for is under the grace period; otherwise the time it had left, moved
// by the outage, but at least the grace period.
func (s *alertState) resume(a savedAlert, hold time.Duration, downAt, ts time.Time) (savedAlert, bool) {
	switch a.State {
	case rules.StateFiring.String():
		return a, true
	case rules.StatePending.String():
	default:
		return a, false
	}
	if hold < s.gracePeriod {
		return a, false
	}
	remaining := hold - downAt.Sub(a.ActiveAt)
	switch {
	case remaining <= 0:
	case remaining < s.gracePeriod:
		a.ActiveAt = ts.Add(s.gracePeriod).Add(-hold)
	default:
		a.ActiveAt = a.ActiveAt.Add(ts.Sub(downAt))
	}
	return a, true
}

// record keeps the group's alerts after its evaluation at ts, and
// rewrites the file when they changed or it is due.
func (s *alertState) record(g *rules.Group, ts time.Time) {
	snap := snapshot(g, ts)
	key := rules.GroupKey(g.File(), g.Name())
	s.mu.Lock()
	defer s.mu.Unlock()
	s.current[key] = snap
	if s.dirty || !snap.same(s.written[key]) || time.Since(s.lastSave) >= min(stateRefresh, s.outageTolerance/2) {
		s.saveLocked()
	}
}

// snapshot is the group's pending and firing alerts.
func snapshot(g *rules.Group, ts time.Time) savedGroup {
	out := savedGroup{File: g.File(), Name: g.Name(), EvaluatedAt: ts}
	for _, ar := range g.AlertingRules() {
		for _, a := range ar.ActiveAlerts() {
			if a.State != rules.StatePending && a.State != rules.StateFiring {
				continue
			}
			out.Alerts = append(out.Alerts, savedAlert{Rule: ar.Name(), RuleLabels: ar.Labels().Map(), Labels: a.Labels.Map(),
				Annotations: a.Annotations.Map(), State: a.State.String(), Value: strconv.FormatFloat(a.Value, 'g', -1, 64),
				ActiveAt: a.ActiveAt.UTC(), FiredAt: a.FiredAt.UTC(), KeepFiringSince: a.KeepFiringSince.UTC()})
		}
	}
	// Active alerts come from a map: a fixed order compares and reads well.
	sort.Slice(out.Alerts, func(i, j int) bool {
		a, b := out.Alerts[i], out.Alerts[j]
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return labels.Compare(labels.FromMap(a.Labels), labels.FromMap(b.Labels)) < 0
	})
	return out
}

// flush writes the last state (at shutdown: each group's last
// evaluation time).
func (s *alertState) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saveLocked()
}

// remove deletes the file (the tenant has no rules left).
func (s *alertState) remove() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.current)
	s.removeLocked()
}

// removeLocked deletes the file: there is nothing to restore.
func (s *alertState) removeLocked() {
	if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.log.Warn("ruler: removing the alert state", "file", s.path, "err", err)
		return
	}
	clear(s.written)
}

// saveLocked writes current, at most maxSavedAlerts alerts; a tenant
// without alerts has no file.
func (s *alertState) saveLocked() {
	keys := make([]string, 0, len(s.current))
	total := 0
	for k, g := range s.current {
		keys = append(keys, k)
		total += len(g.Alerts)
	}
	if total == 0 {
		if len(s.written) > 0 {
			s.removeLocked()
		}
		s.lastSave, s.dirty = time.Now(), false
		return
	}
	sort.Strings(keys)
	st := savedState{Groups: make([]savedGroup, 0, len(keys))}
	room := maxSavedAlerts
	for _, k := range keys {
		g := s.current[k]
		if len(g.Alerts) > room {
			s.log.Warn("ruler: too many active alerts to save; the others start over after a restart", "limit", maxSavedAlerts)
			g.Alerts = g.Alerts[:room]
		}
		room -= len(g.Alerts)
		st.Groups = append(st.Groups, g)
	}
	b, err := json.Marshal(st)
	if err == nil {
		err = atomicfile.Write(s.path, b)
	}
	if err != nil {
		s.log.Warn("ruler: saving the alert state", "file", s.path, "err", err)
		return
	}
	s.written = make(map[string]savedGroup, len(st.Groups))
	for _, g := range st.Groups {
		s.written[rules.GroupKey(g.File, g.Name)] = g
	}
	s.lastSave, s.dirty = time.Now(), false
}
