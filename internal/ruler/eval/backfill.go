package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/rules"

	"github.com/vloki/vloki/internal/ruler/rulestore"
)

// Backfill errors, for the API to answer with the right status.
var (
	// ErrBackfillInvalid: a bad range, a range over the slot limit, or
	// no remote write to send to.
	ErrBackfillInvalid = errors.New("invalid backfill")
	// ErrBackfillNoGroups: no stored group matches.
	ErrBackfillNoGroups = errors.New("no rule groups found")
	// ErrBackfillRunning: the tenant already has a backfill running.
	ErrBackfillRunning = errors.New("a backfill of this tenant is already running")
)

// DefaultBackfillMaxSlots bounds a run: a week of one-minute slots.
const DefaultBackfillMaxSlots = 7 * 24 * 60

// BackfillRequest is what to backfill: the tenant's recording rules in
// the groups matching Namespace and Group (empty: every one), at every
// slot from Start to End included.
type BackfillRequest struct {
	Tenant, Namespace, Group string
	Start, End               time.Time
}

// BackfillReport says what a run wrote.
type BackfillReport struct {
	Groups []BackfillGroup `json:"groups"`
	// Samples (StaleMarkers included) reached the receiver in Requests
	// remote writes.
	Samples      int `json:"samples"`
	StaleMarkers int `json:"staleMarkers"`
	Requests     int `json:"requests"`
}

// BackfillGroup is one group's share of a run.
type BackfillGroup struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"group"`
	Interval  float64 `json:"interval"` // seconds
	Slots     int     `json:"slots"`
	Samples   int     `json:"samples"`
	// StaleMarkers are the samples of Samples that are StaleNaN.
	StaleMarkers int `json:"staleMarkers"`
	// FailedEvaluations counts rule evaluations that failed (no sample
	// written, as live); LastError is the last one's error.
	FailedEvaluations int    `json:"failedEvaluations"`
	LastError         string `json:"lastError"`
	// SkippedAlertingRules are not backfilled (see docs/ruler.md).
	SkippedAlertingRules int `json:"skippedAlertingRules"`
}

// Backfiller evaluates a tenant's recording rules over a past range and
// remote-writes what live evaluation would have written: the same slots,
// the same queries, Prometheus' own group evaluation (rule labels,
// __name__, limit, stale markers), each sample at its slot.
type Backfiller struct {
	o        Options
	maxSlots int
	mu       sync.Mutex
	running  map[string]bool
}

// NewBackfiller returns a backfiller over the evaluator's options; a run
// may cover at most maxSlots slots (all groups together).
func NewBackfiller(o Options, maxSlots int) *Backfiller {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if maxSlots <= 0 {
		maxSlots = DefaultBackfillMaxSlots
	}
	return &Backfiller{o: o, maxSlots: maxSlots, running: map[string]bool{}}
}

// plannedGroup is a stored group selected for a run.
type plannedGroup struct {
	namespace string
	group     rulestore.Group
	recording *rulefmt.RuleGroups // the group with its recording rules only
	report    BackfillGroup
}

// Backfill runs one backfill to its end (or ctx's); the report counts
// what was sent, also when an error stops the run.
func (b *Backfiller) Backfill(ctx context.Context, req BackfillRequest) (BackfillReport, error) {
	var rep BackfillReport
	if !b.o.RemoteWrite.enabled() {
		return rep, fmt.Errorf("%w: ruler remote write is off, there is nowhere to write to", ErrBackfillInvalid)
	}
	if err := b.checkRange(req); err != nil {
		return rep, err
	}
	if !b.begin(req.Tenant) {
		return rep, ErrBackfillRunning
	}
	defer b.end(req.Tenant)
	plan, err := b.plan(req)
	if err != nil {
		return rep, err
	}
	w, err := newRemoteSender(b.o.RemoteWrite, req.Tenant)
	if err != nil {
		return rep, fmt.Errorf("%w: %v", ErrBackfillInvalid, err)
	}
	if b.o.Wait != nil {
		_ = b.o.Wait(ctx, b.o.Tenant(req.Tenant)) // pushes acknowledged so far are searched
	}
	for _, p := range plan {
		err := b.runGroup(ctx, req, p, w)
		rep.Groups = append(rep.Groups, p.report)
		if err != nil {
			rep.count(w)
			return rep, err
		}
	}
	err = w.flush(ctx)
	rep.count(w)
	return rep, err
}

func (rep *BackfillReport) count(w *remoteSender) {
	rep.Samples, rep.StaleMarkers, rep.Requests = w.sent, w.sentStale, w.requests
}

func (b *Backfiller) checkRange(req BackfillRequest) error {
	switch {
	case req.Start.IsZero() || req.End.IsZero():
		return fmt.Errorf("%w: start and end are required", ErrBackfillInvalid)
	case req.End.Before(req.Start):
		return fmt.Errorf("%w: end is before start", ErrBackfillInvalid)
	case req.End.After(time.Now()):
		return fmt.Errorf("%w: end is in the future", ErrBackfillInvalid)
	}
	return nil
}

func (b *Backfiller) begin(tenant string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running[tenant] {
		return false
	}
	b.running[tenant] = true
	return true
}

func (b *Backfiller) end(tenant string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.running, tenant)
}

// plan selects the groups and checks the run's size.
func (b *Backfiller) plan(req BackfillRequest) ([]*plannedGroup, error) {
	nss, err := b.o.Store.List(req.Tenant)
	if err != nil {
		return nil, err
	}
	var plan []*plannedGroup
	slots := 0
	for _, ns := range nss {
		if ns.Err != nil || (req.Namespace != "" && ns.Name != req.Namespace) {
			continue
		}
		for _, g := range ns.Groups {
			if req.Group != "" && g.Name != req.Group {
				continue
			}
			p := b.planGroup(req, ns.Name, g)
			slots += p.report.Slots
			plan = append(plan, p)
		}
	}
	if len(plan) == 0 {
		return nil, ErrBackfillNoGroups
	}
	if slots > b.maxSlots {
		return nil, fmt.Errorf("%w: %d slots, more than the %d a run may evaluate (-ruler.backfill.max-slots); split the range",
			ErrBackfillInvalid, slots, b.maxSlots)
	}
	return plan, nil
}

func (b *Backfiller) planGroup(req BackfillRequest, namespace string, g rulestore.Group) *plannedGroup {
	interval := time.Duration(g.Interval)
	if interval == 0 {
		interval = b.o.EvaluationInterval
	}
	p := &plannedGroup{namespace: namespace, group: g,
		report: BackfillGroup{Namespace: namespace, Name: g.Name, Interval: interval.Seconds()}}
	rec := g
	rec.Rules = nil
	for _, r := range g.Rules {
		if r.Alert != "" {
			p.report.SkippedAlertingRules++
			continue
		}
		rec.Rules = append(rec.Rules, r)
	}
	if len(rec.Rules) == 0 {
		return p
	}
	p.recording = toRuleGroups([]rulestore.Group{rec})
	offset := SlotOffset(b.o.RulePath, req.Tenant, namespace, g.Name, interval)
	first := firstSlot(req.Start, interval, offset)
	if !first.After(req.End) {
		p.report.Slots = int(req.End.Sub(first)/interval) + 1
	}
	return p
}

// firstSlot is the group's first slot at or after t: slots are
// k·interval + offset (Prometheus' Group.EvalTimestamp).
func firstSlot(t time.Time, interval, offset time.Duration) time.Time {
	n := t.UnixNano() - int64(offset)
	base := n - n%int64(interval)
	if n < 0 && n%int64(interval) != 0 {
		base -= int64(interval)
	}
	s := time.Unix(0, base+int64(offset)).UTC()
	if s.Before(t) {
		s = s.Add(interval)
	}
	return s
}

// runGroup evaluates the group at each slot of the range through
// Prometheus' Group.Eval, as the live rules manager does. The slot before
// the range is evaluated first without writing, so that the first slot
// marks stale the series live evaluation would mark stale there.
func (b *Backfiller) runGroup(ctx context.Context, req BackfillRequest, p *plannedGroup, w *remoteSender) error {
	if p.report.Slots == 0 {
		return nil
	}
	app := &backfillAppendable{}
	g, err := b.loadGroup(req.Tenant, p, app)
	if err != nil {
		return err
	}
	interval := g.Interval()
	ts := firstSlot(req.Start, interval, SlotOffset(b.o.RulePath, req.Tenant, p.namespace, p.group.Name, interval))
	app.discard = true
	g.Eval(ctx, ts.Add(-interval))
	app.discard = false
	samples0, stale0 := w.queued, w.queuedStale
	for ; !ts.After(req.End); ts = ts.Add(interval) {
		if err := ctx.Err(); err != nil {
			return err
		}
		g.Eval(ctx, ts)
		for _, r := range g.Rules() {
			if r.Health() == rules.HealthBad {
				p.report.FailedEvaluations++
				p.report.LastError = errText(r.LastError())
			}
		}
		if err := w.add(ctx, app.take()); err != nil {
			return err
		}
		p.report.Samples, p.report.StaleMarkers = w.queued-samples0, w.queuedStale-stale0
	}
	return nil
}

// loadGroup builds the group as the live manager builds it (Prometheus'
// LoadGroups over the same file name and options), writing to app and
// notifying no one. An option of newManager's that changes samples (a
// default query offset, say) must be set here too.
func (b *Backfiller) loadGroup(tenant string, p *plannedGroup, app *backfillAppendable) (*rules.Group, error) {
	file := GroupFile(b.o.RulePath, tenant, p.namespace)
	query := QueryFunc(b.o.Engine, b.o.Tenant(tenant), nil)
	queryOffset := b.o.QueryOffset
	m := rules.NewManager(&rules.ManagerOptions{
		NameValidationScheme: model.UTF8Validation,
		QueryFunc:            query,
		Context:              context.Background(),
		Appendable:           app,
		// Recording rules only: the for-state source is never asked.
		Queryable:                &forStateQueryable{query: query, rules: &ruleIndex{}, log: b.o.Log},
		DefaultRuleQueryOffset:   func() time.Duration { return queryOffset },
		Logger:                   b.o.Log.With("tenant", tenant, "backfill", true),
		GroupLoader:              &loader{files: map[string]*rulefmt.RuleGroups{file: p.recording}},
		RuleDependencyController: noDependencies{},
		Metrics:                  rules.NewGroupMetrics(nil),
	})
	groups, errs := m.LoadGroups(b.o.EvaluationInterval, labels.FromMap(b.o.Alerting.ExternalLabels), b.o.ExternalURL, nil, false, file)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	g := groups[rules.GroupKey(file, p.group.Name)]
	if g == nil {
		return nil, fmt.Errorf("group %q not loaded", p.group.Name)
	}
	return g, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Slots is the number of slots the run evaluated, all groups together.
func (rep BackfillReport) Slots() int {
	n := 0
	for _, g := range rep.Groups {
		n += g.Slots
	}
	return n
}
