package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/prometheus/rules"
	"gopkg.in/yaml.v3"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/ruler/eval"
	"github.com/vloki/vloki/internal/ruler/rulestore"
)

// Ruler configures Loki's ruler API (nil Store: the routes answer as a
// Loki without ruler storage).
type Ruler struct {
	Store *rulestore.Store
	// EvaluationInterval is Loki's ruler.evaluation_interval, the interval
	// of groups that set none.
	EvaluationInterval time.Duration
	// Evaluator, when set, evaluates the stored rules: the Prometheus
	// endpoints show its state.
	Evaluator *eval.Evaluator
	// Backfiller, when set, serves POST /ruler/backfill.
	Backfiller *eval.Backfiller
}

// rulesPrefixes are the YAML config API's two prefixes (Grafana uses the
// legacy one).
var rulesPrefixes = []string{"/loki/api/v1/rules", "/api/prom/rules"}

// isRulesConfigPath reports whether the rules config API answers p, once
// cleaned as gorilla/mux cleans it.
func isRulesConfigPath(p string) bool {
	for _, c := range []string{p, muxCleanPath(p)} {
		for _, pre := range rulesPrefixes {
			if c == pre || strings.HasPrefix(c, pre+"/") {
				return true
			}
		}
	}
	return false
}

// muxCleanPath is gorilla/mux's cleanPath: path.Clean keeping a trailing
// slash.
func muxCleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// rulesConfig routes the YAML rules API as Loki's gorilla/mux router does:
// on the decoded path (so %2F splits segments), an unclean path redirected
// (301, no body), a wrong method 405 with an empty body, anything else
// gorilla's 404.
func (s *Server) rulesConfig(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if c := muxCleanPath(p); c != p {
		u := *r.URL
		u.Path, u.RawPath = c, ""
		w.Header().Set("Location", u.String())
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	var rest string
	matched := false
	for _, pre := range rulesPrefixes {
		if p == pre || strings.HasPrefix(p, pre+"/") {
			rest, matched = strings.TrimPrefix(p, pre), true
			break
		}
	}
	segs := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	notFound := func() { writeText(w, http.StatusNotFound, "404 page not found\n") }
	methods := func(allowed ...string) bool {
		for _, m := range allowed {
			if r.Method == m {
				return true
			}
		}
		w.WriteHeader(http.StatusMethodNotAllowed)
		return false
	}
	switch {
	case !matched:
		notFound()
	case rest == "":
		if methods(http.MethodGet) {
			s.rulerTenant(false, func(w http.ResponseWriter, r *http.Request, tenant string) {
				s.listRules(w, r, tenant, "", false)
			})(w, r)
		}
	case len(segs) == 1 && segs[0] != "":
		if !methods(http.MethodGet, http.MethodPost, http.MethodDelete) {
			return
		}
		s.rulerTenant(false, func(w http.ResponseWriter, r *http.Request, tenant string) {
			ns, err := parseRuleName(segs[0], "namespace")
			if err != nil {
				respondRulerError(w, http.StatusInternalServerError, "server_error", err.Error())
				return
			}
			switch r.Method {
			case http.MethodGet:
				s.listRules(w, r, tenant, ns, true)
			case http.MethodPost:
				s.createRuleGroup(w, r, tenant, ns)
			default:
				s.deleteNamespace(w, tenant, ns)
			}
		})(w, r)
	case len(segs) == 2 && segs[0] != "" && segs[1] != "":
		if !methods(http.MethodGet, http.MethodDelete) {
			return
		}
		s.rulerTenant(false, func(w http.ResponseWriter, r *http.Request, tenant string) {
			ns, err := parseRuleName(segs[0], "namespace")
			if err == nil {
				var g string
				if g, err = parseRuleName(segs[1], "groupname"); err == nil {
					if r.Method == http.MethodGet {
						s.getRuleGroup(w, tenant, ns, g)
					} else {
						s.deleteRuleGroup(w, tenant, ns, g)
					}
					return
				}
			}
			respondRulerError(w, http.StatusInternalServerError, "server_error", err.Error())
		})(w, r)
	default:
		notFound()
	}
}

// parseRuleName unescapes a path segment once more, as Loki's handlers
// do, and refuses names leaving the directory.
func parseRuleName(seg, what string) (string, error) {
	name, err := url.PathUnescape(seg)
	if err != nil {
		return "", err
	}
	if !filepath.IsLocal(name) {
		return "", fmt.Errorf("invalid %s: path traversal not allowed", what)
	}
	return name, nil
}

// rulerTenant resolves the tenant as Loki's ruler handlers see it: several
// org IDs pass Loki's auth middleware and fail in the handler, with a 400
// on the Prometheus JSON routes and a 500 "no org id" on the YAML ones.
func (s *Server) rulerTenant(prom bool, h func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.d.Tenants.AuthEnabled && strings.Contains(r.Header.Get(tenant.Header), "|") {
			if prom {
				respondRulerError(w, http.StatusBadRequest, "bad_data", "too many org ids found")
			} else {
				respondRulerError(w, http.StatusInternalServerError, "server_error", "no org id")
			}
			return
		}
		ctx, _, ok := s.tenantContext(w, r)
		if !ok {
			return
		}
		h(w, r.WithContext(ctx), tenant.NameFrom(ctx))
	}
}

// rulerResponse is Loki's ruler API envelope; errorType and error are
// always present.
type rulerResponse struct {
	Status    string `json:"status"`
	Data      any    `json:"data"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
}

// respondRulerError is Loki's respondError: the status written first and
// no Content-Type set, so Go sniffs text/plain.
func respondRulerError(w http.ResponseWriter, status int, errorType, msg string) {
	b, _ := json.Marshal(rulerResponse{Status: "error", ErrorType: errorType, Error: msg})
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func respondAccepted(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte(`{"status":"success","data":null,"errorType":"","error":""}`))
}

// httpError is Go's http.Error, as Loki's handlers use it.
func httpError(w http.ResponseWriter, msg string, status int) {
	http.Error(w, msg, status)
}

func sendYAML(w http.ResponseWriter, v any) {
	b, err := yaml.Marshal(v)
	if err != nil {
		httpError(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(b)
}

// listRules is Loki's ListRules: all namespaces (those that fail to read
// are logged and left out, where Loki fails the whole listing) or one
// (its error answered, as Loki's local store does).
func (s *Server) listRules(w http.ResponseWriter, r *http.Request, tenant, namespace string, one bool) {
	if err := r.ParseForm(); err != nil {
		respondRulerError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	filter, ok := parseRuleLabels(r.Form.Get("labels"))
	if !ok {
		// Loki's parseLabels indexes past the end of a pair without a
		// colon; its recovery middleware answers the panic.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("error while processing request: runtime error: index out of range [1] with length 1"))
		return
	}
	st := s.d.Ruler.Store
	out := map[string][]rulestore.Group{}
	if one {
		groups, err := st.Namespace(tenant, namespace)
		if err != nil {
			httpError(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(groups) > 0 {
			out[namespace] = groups
		}
	} else {
		nss, err := st.List(tenant)
		if err != nil {
			httpError(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, ns := range nss {
			if ns.Err == nil && len(ns.Groups) > 0 {
				out[ns.Name] = ns.Groups
			}
		}
	}
	if len(out) == 0 {
		httpError(w, rulestore.ErrNoRuleGroups.Error(), http.StatusNotFound)
		return
	}
	if len(filter) > 0 {
		for ns, groups := range out {
			var kept []rulestore.Group
			for _, g := range groups {
				rules := []rulestore.Rule{}
				for _, rl := range g.Rules {
					for k, v := range rl.Labels {
						if filter[[2]string{k, v}] {
							rules = append(rules, rl)
							break
						}
					}
				}
				if len(rules) > 0 {
					g.Rules = rules
					kept = append(kept, g)
				}
			}
			if len(kept) == 0 {
				delete(out, ns)
			} else {
				out[ns] = kept
			}
		}
	}
	sendYAML(w, out)
}

// parseRuleLabels reads Loki's undocumented labels=k1:v1,k2:v2 filter.
func parseRuleLabels(s string) (map[[2]string]bool, bool) {
	if s == "" {
		return nil, true
	}
	out := map[[2]string]bool{}
	for _, pair := range strings.Split(s, ",") {
		kv := strings.Split(pair, ":")
		if len(kv) < 2 {
			return nil, false
		}
		out[[2]string{kv[0], kv[1]}] = true
	}
	return out, true
}

func (s *Server) getRuleGroup(w http.ResponseWriter, tenant, namespace, group string) {
	g, err := s.d.Ruler.Store.Group(tenant, namespace, group)
	if err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, rulestore.ErrGroupNotFound) {
			status = http.StatusNotFound
		}
		httpError(w, err.Error(), status)
		return
	}
	sendYAML(w, g)
}

// createRuleGroup is Loki's CreateRuleGroup: decode (non-strict),
// validate, check the limits, upsert.
func (s *Server) createRuleGroup(w http.ResponseWriter, r *http.Request, tenant, namespace string) {
	// As Loki's parseRequest: a form content type has its body consumed
	// here (Grafana and lokitool send none).
	if err := r.ParseForm(); err != nil {
		respondRulerError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	payload, err := io.ReadAll(r.Body)
	if err != nil {
		httpError(w, err.Error(), http.StatusBadRequest)
		return
	}
	g, err := rulestore.ParseGroup(payload)
	if err != nil {
		httpError(w, err.Error(), http.StatusBadRequest)
		return
	}
	if errs := rulestore.Validate(g); len(errs) > 0 {
		httpError(w, rulestore.JoinErrors(errs), http.StatusBadRequest)
		return
	}
	rc, l := s.d.Ruler, s.d.Limits.For(s.d.Tenants.Map(tenant))
	if l.RulerMaxRulesPerRuleGroup > 0 && len(g.Rules) > l.RulerMaxRulesPerRuleGroup {
		httpError(w, fmt.Sprintf("per-user rules per rule group limit (limit: %d actual: %d) exceeded", l.RulerMaxRulesPerRuleGroup, len(g.Rules)), http.StatusBadRequest)
		return
	}
	n, err := rc.Store.CountGroups(tenant)
	if err != nil {
		httpError(w, err.Error(), http.StatusInternalServerError)
		return
	}
	// Loki counts the new group even when it replaces one.
	if l.RulerMaxRuleGroupsPerTenant > 0 && n+1 > l.RulerMaxRuleGroupsPerTenant {
		httpError(w, fmt.Sprintf("per-user rule groups limit (limit: %d actual: %d) exceeded", l.RulerMaxRuleGroupsPerTenant, n+1), http.StatusBadRequest)
		return
	}
	if err := rc.Store.SetGroup(tenant, namespace, g); err != nil {
		var ne *rulestore.NameError
		if errors.As(err, &ne) {
			httpError(w, err.Error(), http.StatusBadRequest)
			return
		}
		httpError(w, err.Error(), http.StatusInternalServerError)
		return
	}
	respondAccepted(w)
}

func (s *Server) deleteNamespace(w http.ResponseWriter, tenant, namespace string) {
	if err := s.d.Ruler.Store.DeleteNamespace(tenant, namespace); err != nil {
		if errors.Is(err, rulestore.ErrNamespaceNotFound) {
			httpError(w, err.Error(), http.StatusNotFound)
			return
		}
		respondRulerError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	respondAccepted(w)
}

// deleteRuleGroup: 202 also for a group that is not there, as Loki's
// writable store answers.
func (s *Server) deleteRuleGroup(w http.ResponseWriter, tenant, namespace, group string) {
	if err := s.d.Ruler.Store.DeleteGroup(tenant, namespace, group); err != nil {
		respondRulerError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	respondAccepted(w)
}

// The Prometheus-compatible JSON, in Loki's field order.
type promRuleGroup struct {
	Name           string    `json:"name"`
	File           string    `json:"file"`
	Rules          []any     `json:"rules"`
	Interval       float64   `json:"interval"`
	Limit          int64     `json:"limit"`
	LastEvaluation time.Time `json:"lastEvaluation"`
	EvaluationTime float64   `json:"evaluationTime"`
}

type promAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
	ActiveAt    *time.Time        `json:"activeAt"`
	Value       string            `json:"value"`
}

type promAlertingRule struct {
	State          string            `json:"state"`
	Name           string            `json:"name"`
	Query          string            `json:"query"`
	Duration       float64           `json:"duration"`
	Labels         map[string]string `json:"labels"`
	Annotations    map[string]string `json:"annotations"`
	Alerts         []*promAlert      `json:"alerts"`
	Health         string            `json:"health"`
	LastError      string            `json:"lastError"`
	Type           string            `json:"type"`
	LastEvaluation time.Time         `json:"lastEvaluation"`
	EvaluationTime float64           `json:"evaluationTime"`
}

type promRecordingRule struct {
	Name           string            `json:"name"`
	Query          string            `json:"query"`
	Labels         map[string]string `json:"labels"`
	Health         string            `json:"health"`
	LastError      string            `json:"lastError"`
	Type           string            `json:"type"`
	LastEvaluation time.Time         `json:"lastEvaluation"`
	EvaluationTime float64           `json:"evaluationTime"`
}

// promRules is Loki's /prometheus/api/v1/rules over the stored groups,
// with their evaluation state when the evaluator has loaded them (a group
// not loaded yet shows as Prometheus shows a rule never evaluated: health
// and, for alerting rules, state unknown, no alerts).
func (s *Server) promRules(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	s.rulerTenant(true, func(w http.ResponseWriter, r *http.Request, tenant string) {
		q := r.URL.Query()
		files, groupNames, ruleNames := stringSet(q["file"]), stringSet(q["rule_group"]), stringSet(q["rule_name"])
		alerts, records := true, true
		switch typ := strings.ToLower(q.Get("type")); typ {
		case "":
		case "alert":
			records = false
		case "record":
			alerts = false
		default:
			respondRulerError(w, http.StatusBadRequest, "bad_data", fmt.Sprintf("not supported value %q", typ))
			return
		}
		nss, err := s.d.Ruler.Store.List(tenant)
		if err != nil {
			respondRulerError(w, http.StatusInternalServerError, "server_error", err.Error())
			return
		}
		type keyed struct {
			file, name string
			g          *promRuleGroup
		}
		var all []keyed
		for _, ns := range nss {
			if ns.Err != nil || !files.has(ns.Name) {
				continue
			}
			for _, g := range ns.Groups {
				if !groupNames.has(g.Name) {
					continue
				}
				interval := time.Duration(g.Interval)
				if interval == 0 {
					interval = s.d.Ruler.EvaluationInterval
				}
				pg := &promRuleGroup{Name: g.Name, File: ns.Name, Rules: []any{}, Interval: interval.Seconds(), Limit: int64(g.Limit)}
				var evaluated []rules.Rule
				if ev := s.d.Ruler.Evaluator; ev != nil {
					if eg := ev.Group(tenant, ns.Name, g.Name); eg != nil && sameRules(eg.Rules(), g.Rules) {
						evaluated = eg.Rules()
						pg.Interval, pg.LastEvaluation, pg.EvaluationTime = eg.Interval().Seconds(), eg.GetLastEvaluation(), eg.GetEvaluationTime().Seconds()
					}
				}
				for i, rl := range g.Rules {
					if !ruleNames.has(rl.Name()) {
						continue
					}
					var er rules.Rule
					if evaluated != nil {
						er = evaluated[i]
					}
					if rl.Alert != "" && alerts {
						pr := promAlertingRule{State: "unknown", Name: rl.Alert, Query: canonicalQuery(rl.Expr),
							Duration: time.Duration(rl.For).Seconds(), Labels: nonNil(rl.Labels), Annotations: nonNil(rl.Annotations),
							Alerts: []*promAlert{}, Health: "unknown", Type: "alerting"}
						if ar, ok := er.(*rules.AlertingRule); ok {
							pr.State, pr.Query, pr.Alerts = ar.State().String(), ar.Query().String(), promAlerts(ar.ActiveAlerts())
							pr.Health, pr.LastError = string(ar.Health()), errText(ar.LastError())
							pr.LastEvaluation, pr.EvaluationTime = ar.GetEvaluationTimestamp(), ar.GetEvaluationDuration().Seconds()
						}
						pg.Rules = append(pg.Rules, pr)
					} else if rl.Alert == "" && records {
						pr := promRecordingRule{Name: rl.Record, Query: canonicalQuery(rl.Expr),
							Labels: nonNil(rl.Labels), Health: "unknown", Type: "recording"}
						if rr, ok := er.(*rules.RecordingRule); ok {
							pr.Query, pr.Health, pr.LastError = rr.Query().String(), string(rr.Health()), errText(rr.LastError())
							pr.LastEvaluation, pr.EvaluationTime = rr.GetEvaluationTimestamp(), rr.GetEvaluationDuration().Seconds()
						}
						pg.Rules = append(pg.Rules, pr)
					}
				}
				if len(pg.Rules) > 0 { // as Prometheus, no group left empty by filtering
					all = append(all, keyed{url.PathEscape(ns.Name), g.Name, pg})
				}
			}
		}
		// Prometheus' manager orders by rule file (Loki's escaped file
		// name), then group name; Loki then sorts by namespace.
		sort.SliceStable(all, func(i, j int) bool {
			if all[i].file != all[j].file {
				return all[i].file < all[j].file
			}
			return all[i].name < all[j].name
		})
		sort.SliceStable(all, func(i, j int) bool { return all[i].g.File < all[j].g.File })
		groups := make([]*promRuleGroup, len(all))
		for i, k := range all {
			groups[i] = k.g
		}
		b, err := json.Marshal(rulerResponse{Status: "success", Data: map[string]any{"groups": groups}})
		if err != nil {
			respondRulerError(w, http.StatusInternalServerError, "server_error", "unable to marshal the requested data")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})(w, r)
}

// promAlerts converts active (pending or firing) alerts to Loki's JSON:
// the value as strconv.FormatFloat(v, 'e', -1, 64), activeAt in UTC.
func promAlerts(as []*rules.Alert) []*promAlert {
	out := make([]*promAlert, 0, len(as))
	for _, a := range as {
		at := a.ActiveAt.UTC()
		out = append(out, &promAlert{Labels: a.Labels.Map(), Annotations: a.Annotations.Map(), State: a.State.String(),
			ActiveAt: &at, Value: strconv.FormatFloat(a.Value, 'e', -1, 64)})
	}
	return out
}

// sameRules reports whether the loaded rules are the stored ones, by
// name (a group just changed may not be loaded yet).
func sameRules(loaded []rules.Rule, stored []rulestore.Rule) bool {
	if len(loaded) != len(stored) {
		return false
	}
	for i, r := range loaded {
		if r.Name() != stored[i].Name() {
			return false
		}
	}
	return true
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// promAlerts is Loki's /prometheus/api/v1/alerts: the pending and firing
// alerts of all the tenant's alerting rules.
func (s *Server) promAlerts(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json") // Loki sets it before any error
	s.rulerTenant(true, func(w http.ResponseWriter, r *http.Request, tenant string) {
		alerts := []*promAlert{}
		if ev := s.d.Ruler.Evaluator; ev != nil {
			for _, ar := range ev.AlertingRules(tenant) {
				alerts = append(alerts, promAlerts(ar.ActiveAlerts())...)
			}
		}
		b, err := json.Marshal(rulerResponse{Status: "success", Data: map[string]any{"alerts": alerts}})
		if err != nil {
			respondRulerError(w, http.StatusInternalServerError, "server_error", "unable to marshal the requested data")
			return
		}
		_, _ = w.Write(b)
	})(w, r)
}

// canonicalQuery is the rule's LogQL as Loki re-prints it.
func canonicalQuery(expr string) string {
	e, err := logql.ParseExpr(expr)
	if err != nil {
		return expr
	}
	return e.String()
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

type strSet map[string]bool

func stringSet(vs []string) strSet {
	if len(vs) == 0 {
		return nil
	}
	s := strSet{}
	for _, v := range vs {
		s[v] = true
	}
	return s
}

// has is true for every name when the set is empty (no filter).
func (s strSet) has(v string) bool { return len(s) == 0 || s[v] }
