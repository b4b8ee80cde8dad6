package eval

import (
	"context"
	"log/slog"
	"net/url"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/notifier"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/storage"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/ruler/rulestore"
)

// Options configure the evaluator with Loki's ruler settings.
type Options struct {
	Store  *rulestore.Store
	Engine Engine
	// Tenant maps a tenant name to its VictoriaLogs pair.
	Tenant func(string) tenant.ID
	// Wait, when set, makes the tenant's acknowledged pushes visible
	// before each query (vloki's read-your-writes).
	Wait func(context.Context, tenant.ID) error
	// RulePath is Loki's ruler.rule_path: nothing is written there, but
	// it is part of each group's identity, hence of its slot.
	RulePath string
	// EvaluationInterval is the interval of groups that set none;
	// PollInterval how often the store is re-read.
	EvaluationInterval, PollInterval time.Duration
	// ExternalURL is Loki's ruler.external_url ($externalURL).
	ExternalURL string
	// OutageTolerance, ForGracePeriod and ResendDelay are Loki's
	// for_outage_tolerance, for_grace_period and resend_delay.
	OutageTolerance, ForGracePeriod, ResendDelay time.Duration
	Log                                          *slog.Logger
	// Registerer, when set, gets each tenant's rule evaluation metrics
	// under Loki's names (loki_prometheus_rule_evaluations_total{user,
	// rule_group}, …).
	Registerer prometheus.Registerer
	// Alerting sends alerts to Alertmanager (none without URLs).
	Alerting Alerting
	// RemoteWrite sends recorded samples (discarded without a URL).
	RemoteWrite RemoteWrite
	// QueryOffset is the query offset of groups that set none (vloki's
	// ruler.query_offset; 0, Loki's, queries at each slot).
	QueryOffset time.Duration
	// AlertStateDir keeps each tenant's pending and firing alerts across
	// restarts (vloki's; empty: not kept, as in Loki).
	AlertStateDir string
}

// Evaluator runs a rules manager per tenant that has rules.
type Evaluator struct {
	o Options
	// syncMu serialises syncs; mu guards managers, held only briefly so
	// that the API does not wait for a whole sync (a manager's Update
	// still holds that manager while it replaces changed groups).
	syncMu   sync.Mutex
	mu       sync.Mutex
	managers map[string]*tenantManager
	kick     chan struct{}
	// reloaded is loki_ruler_config_last_reload_successful{user}.
	reloaded *prometheus.GaugeVec
	// syncs is loki_ruler_sync_rules_total{reason}.
	syncs  *prometheus.CounterVec
	cancel context.CancelFunc
	done   chan struct{}
}

type tenantManager struct {
	m      *rules.Manager
	loader *loader
	// metrics (loki_*{user}), walMetrics (loki_ruler_wal_*{tenant}) and
	// rwMetrics (vloki_ruler_remote_write_*{tenant}): the tenant's
	// metrics, unregistered on stop.
	metrics, walMetrics, rwMetrics *tenantRegisterer
	notifier                       *notifier.Manager
	wal                            *walStorage
	// index serves the for-state restore; state, when kept, the alerts
	// saved across restarts.
	index *ruleIndex
	state *alertState
}

func (tm *tenantManager) stop() {
	tm.m.Stop()
	if tm.state != nil {
		tm.state.flush()
	}
	if tm.notifier != nil {
		tm.notifier.Stop()
	}
	if tm.wal != nil {
		_ = tm.wal.Close()
	}
	tm.metrics.unregisterAll()
	tm.walMetrics.unregisterAll()
	tm.rwMetrics.unregisterAll()
}

// GroupFile is the file name Loki gives a namespace's groups, part of the
// group's identity: <rule_path>/<tenant>/<url.PathEscape(namespace)>.
func GroupFile(rulePath, tenant, namespace string) string {
	return filepath.Join(rulePath, tenant, url.PathEscape(namespace))
}

// SlotOffset is where within each interval the group is evaluated:
// the hash of the labels {name=<group>, file=<file>} modulo the
// interval, as Prometheus' Group.EvalTimestamp.
func SlotOffset(rulePath, tenant, namespace, group string, interval time.Duration) time.Duration {
	h := labels.New(labels.Label{Name: "name", Value: group}, labels.Label{Name: "file", Value: GroupFile(rulePath, tenant, namespace)}).Hash()
	return time.Duration(h % uint64(interval))
}

// Check reports configuration errors (a bad alertmanager_url).
func (e *Evaluator) Check() error {
	if _, _, err := e.o.Alerting.alertmanagers(); err != nil {
		return err
	}
	return e.o.RemoteWrite.checkClients()
}

// New returns a stopped evaluator; Start runs it.
func New(o Options) *Evaluator {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Minute
	}
	e := &Evaluator{o: o, managers: map[string]*tenantManager{}, kick: make(chan struct{}, 1), syncs: newSyncCounter(),
		reloaded: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "loki_ruler_config_last_reload_successful",
			Help: "Whether the tenant's last rule load succeeded (1) or not (0)."}, []string{"user"})}
	if o.Registerer != nil {
		o.Registerer.MustRegister(e.reloaded, e.syncs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "loki_ruler_managers_total",
			Help: "Rules managers running, one per tenant with rules."}, func() float64 {
			e.mu.Lock()
			defer e.mu.Unlock()
			return float64(len(e.managers))
		}))
	}
	return e
}

// Start syncs the store, then again every poll interval and whenever
// Changed is called, until Stop.
func (e *Evaluator) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel, e.done = cancel, make(chan struct{})
	e.syncs.WithLabelValues(syncInitial).Inc()
	e.Sync()
	go func() {
		defer close(e.done)
		t := time.NewTicker(e.o.PollInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				e.syncs.WithLabelValues(syncPeriodic).Inc()
			case <-e.kick:
				e.syncs.WithLabelValues(syncAPIChange).Inc()
			}
			e.Sync()
		}
	}()
}

// Changed asks for a sync soon (the API changed a tenant's rules).
func (e *Evaluator) Changed(string) {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// Stop ends the evaluations.
func (e *Evaluator) Stop() {
	if e.cancel != nil {
		e.cancel()
		<-e.done
	}
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	e.mu.Lock()
	ms := e.managers
	e.managers = map[string]*tenantManager{}
	e.mu.Unlock()
	for _, tm := range ms {
		tm.stop()
	}
}

// Sync loads every tenant's stored groups into its manager: a manager is
// created for a tenant with rules and stopped for one without. A
// namespace that fails to read is left out (its rules stop), the others
// run.
func (e *Evaluator) Sync() {
	tenants, err := e.o.Store.Tenants()
	if err != nil {
		e.o.Log.Error("ruler: listing tenants", "err", err)
		return
	}
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	seen := map[string]bool{}
	for _, tenant := range tenants {
		nss, err := e.o.Store.List(tenant)
		if err != nil {
			e.o.Log.Error("ruler: listing rules", "tenant", tenant, "err", err)
			seen[tenant] = true // keep what runs
			continue
		}
		files := map[string]*rulefmt.RuleGroups{}
		for _, ns := range nss {
			if ns.Err != nil || len(ns.Groups) == 0 {
				continue
			}
			f := GroupFile(e.o.RulePath, tenant, ns.Name)
			files[f] = toRuleGroups(ns.Groups)
		}
		if len(files) == 0 {
			continue
		}
		seen[tenant] = true
		e.mu.Lock()
		tm := e.managers[tenant]
		if tm == nil {
			tm = e.newManager(tenant)
			e.managers[tenant] = tm
			go tm.m.Run()
		}
		e.mu.Unlock()
		tm.loader.files = files
		list := make([]string, 0, len(files))
		for f := range files {
			list = append(list, f)
		}
		sort.Strings(list)
		tm.index.set(files, list)
		if err := tm.m.Update(e.o.EvaluationInterval, list, labels.FromMap(e.o.Alerting.ExternalLabels), e.o.ExternalURL, tm.iterate()); err != nil {
			e.o.Log.Error("ruler: loading rules", "tenant", tenant, "err", err)
			e.reloaded.WithLabelValues(tenant).Set(0)
		} else {
			e.reloaded.WithLabelValues(tenant).Set(1)
		}
		if tm.state != nil {
			tm.state.loaded(tm.m.RuleGroups())
		}
	}
	var stopped []*tenantManager
	e.mu.Lock()
	for name, tm := range e.managers {
		if !seen[name] {
			stopped = append(stopped, tm)
			delete(e.managers, name)
			e.reloaded.DeleteLabelValues(name)
		}
	}
	e.mu.Unlock()
	for _, tm := range stopped {
		tm.stop()
		if tm.state != nil {
			tm.state.remove() // no rules left: nothing to restore
		}
	}
}

// iterate is the groups' evaluation: Prometheus' default, or with the
// alerts kept across restarts.
func (tm *tenantManager) iterate() rules.GroupEvalIterationFunc {
	if tm.state == nil {
		return nil
	}
	return tm.state.iterate
}

func (e *Evaluator) newManager(tenant string) *tenantManager {
	log := e.o.Log.With("tenant", tenant)
	// Loki's names: Prometheus' rules and notifier metrics prefixed loki_
	// with the tenant as user, remote write's prefixed loki_ruler_wal_
	// with the tenant as tenant.
	tm := &tenantManager{loader: &loader{}, index: &ruleIndex{}, metrics: newTenantRegisterer(e.o.Registerer, "loki_", "user", tenant, log),
		walMetrics: newTenantRegisterer(e.o.Registerer, "loki_ruler_wal_", "tenant", tenant, log),
		rwMetrics:  newTenantRegisterer(e.o.Registerer, "", "tenant", tenant, log)}
	if e.o.AlertStateDir != "" {
		st, err := openState(e.o.AlertStateDir, tenant, e.o.OutageTolerance, e.o.ForGracePeriod, log)
		if err != nil {
			log.Error("ruler: alert state not kept", "err", err)
		}
		tm.state = st
	}
	metrics := rules.NewGroupMetrics(nil)
	tm.metrics.MustRegister(metrics.EvalDuration, metrics.EvalDurationHistogram, metrics.IterationDuration,
		metrics.IterationDurationHistogram, metrics.IterationsMissed, metrics.IterationsScheduled, metrics.EvalTotal,
		metrics.EvalFailures, metrics.GroupInterval, metrics.GroupLastEvalTime, metrics.GroupLastDuration,
		metrics.GroupLastRuleDurationSum, metrics.GroupLastRestoreDuration, metrics.GroupRules, metrics.GroupSamples)
	n, err := newNotifier(e.o.Alerting, tenant, tm.metrics, e.o.Log.With("tenant", tenant))
	if err != nil { // checked by Check at start
		e.o.Log.Error("ruler: alertmanager", "tenant", tenant, "err", err)
	}
	tm.notifier = n
	var appendable storage.Appendable = discard{}
	if e.o.RemoteWrite.enabled() {
		wal, err := openWAL(e.o.RemoteWrite, tenant, tm.walMetrics, tm.rwMetrics, e.o.Log.With("tenant", tenant))
		if err != nil {
			// Samples are lost until the next manager; the log says so.
			e.o.Log.Error("ruler: opening the remote write WAL; recorded samples are discarded", "tenant", tenant, "err", err)
		} else {
			tm.wal, appendable = wal, wal
		}
	}
	query := QueryFunc(e.o.Engine, e.o.Tenant(tenant), e.o.Wait)
	forState := &forStateQueryable{query: query, rules: tm.index, log: log}
	if tm.state != nil {
		forState.skip = tm.state.isRestored
	}
	queryOffset := e.o.QueryOffset
	tm.m = rules.NewManager(&rules.ManagerOptions{
		NameValidationScheme:     model.UTF8Validation,
		QueryFunc:                query,
		NotifyFunc:               notifyFunc(n, e.o.ExternalURL, e.o.Alerting.DatasourceUID),
		Context:                  context.Background(),
		Appendable:               appendable,
		Queryable:                forState,
		DefaultRuleQueryOffset:   func() time.Duration { return queryOffset },
		Logger:                   e.o.Log.With("tenant", tenant),
		OutageTolerance:          e.o.OutageTolerance,
		ForGracePeriod:           e.o.ForGracePeriod,
		ResendDelay:              e.o.ResendDelay,
		GroupLoader:              tm.loader,
		RuleDependencyController: noDependencies{},
		Metrics:                  metrics,
	})
	return tm
}

func toRuleGroups(gs []rulestore.Group) *rulefmt.RuleGroups {
	out := &rulefmt.RuleGroups{}
	for _, g := range gs {
		rg := rulefmt.RuleGroup{Name: g.Name, Interval: g.Interval, QueryOffset: g.QueryOffset, Limit: g.Limit}
		for _, r := range g.Rules {
			rg.Rules = append(rg.Rules, rulefmt.Rule{Record: r.Record, Alert: r.Alert, Expr: r.Expr,
				For: r.For, KeepFiringFor: r.KeepFiringFor, Labels: r.Labels, Annotations: r.Annotations})
		}
		out.Groups = append(out.Groups, rg)
	}
	return out
}

// Group is the evaluated group of the tenant's namespace, nil when none
// is loaded.
func (e *Evaluator) Group(tenant, namespace, name string) *rules.Group {
	e.mu.Lock()
	tm := e.managers[tenant]
	e.mu.Unlock()
	if tm == nil {
		return nil
	}
	file := GroupFile(e.o.RulePath, tenant, namespace)
	for _, g := range tm.m.RuleGroups() {
		if g.File() == file && g.Name() == name {
			return g
		}
	}
	return nil
}

// AlertingRules are the tenant's loaded alerting rules.
func (e *Evaluator) AlertingRules(tenant string) []*rules.AlertingRule {
	e.mu.Lock()
	tm := e.managers[tenant]
	e.mu.Unlock()
	if tm == nil {
		return nil
	}
	return tm.m.AlertingRules()
}
