package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/vloki/vloki/internal/config"
)

// The texts, codes and layouts below are Loki v3.7.8's ruler's, as
// ../shared/reference/loki-ruler.md records them (§1, §3).

// rulerTargets are vloki on every backend with the ruler API over a rule
// directory of the test's; rules are not evaluated unless change says so
// (so that answers do not depend on when a slot falls).
func rulerTargets(t *testing.T, change func(*config.Ruler)) ([]target, string) {
	return rulerTargetsWith(t, func(cfg *config.Config) {
		if change != nil {
			change(&cfg.Ruler)
		}
	})
}

// rulerTargetsWith is rulerTargets with a change of the whole
// configuration.
func rulerTargetsWith(t *testing.T, change func(*config.Config)) ([]target, string) {
	dir, stateDir := t.TempDir(), t.TempDir()
	return targetsWith(t, func(cfg *config.Config) {
		cfg.Ruler.Storage.Local.Directory = dir
		cfg.Ruler.AlertStateDir = stateDir
		cfg.Ruler.EnableEvaluation = false
		change(cfg)
	}), dir
}

// rulerDo sends a request as given (no redirect followed, the path not
// re-encoded).
func (tg target) rulerDo(t *testing.T, method, rawPath, tenantID, body string) response {
	t.Helper()
	return tg.do(t, method, rawPath, tenantID, []byte(body), nil)
}

func expectAnswer(t *testing.T, what string, r response, status int, contentType, body string) {
	t.Helper()
	if r.status != status || r.header.Get("Content-Type") != contentType || string(r.body) != body {
		t.Errorf("%s: %d %q %q\nwant %d %q %q", what, r.status, r.header.Get("Content-Type"), r.body, status, contentType, body)
	}
}

const (
	accepted  = `{"status":"success","data":null,"errorType":"","error":""}`
	textPlain = "text/plain; charset=utf-8"
	appJSON   = "application/json"
	appYAML   = "application/yaml"
)

// grafanaGroup is what Grafana's backend decodes a rules answer into,
// with unknown keys refused (lotex_ruler.go, yamlExtractor).
type grafanaGroup struct {
	Name                          string         `yaml:"name"`
	Interval                      string         `yaml:"interval"`
	Rules                         []grafanaRule  `yaml:"rules"`
	SourceTenants                 []string       `yaml:"source_tenants"`
	EvaluationDelay               string         `yaml:"evaluation_delay"`
	QueryOffset                   string         `yaml:"query_offset"`
	AlignEvaluationTimeOnInterval bool           `yaml:"align_evaluation_time_on_interval"`
	Limit                         int            `yaml:"limit"`
	_                             map[string]any `yaml:"-"`
}

type grafanaRule struct {
	Record        string            `yaml:"record"`
	Alert         string            `yaml:"alert"`
	Expr          string            `yaml:"expr"`
	For           string            `yaml:"for"`
	KeepFiringFor string            `yaml:"keep_firing_for"`
	Labels        map[string]string `yaml:"labels"`
	Annotations   map[string]string `yaml:"annotations"`
	GrafanaAlert  map[string]any    `yaml:"grafana_alert"`
}

func grafanaDecodes(t *testing.T, body []byte, into any) {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(body))
	dec.KnownFields(true)
	if err := dec.Decode(into); err != nil {
		t.Errorf("Grafana's strict decoding fails: %v\n%s", err, body)
	}
}

// TestRulerErrors: validation texts, routing of encoded names, wrong
// methods, path traversal and tenants, as Loki answers them.
func TestRulerErrors(t *testing.T) {
	targets, _ := rulerTargetsWith(t, func(c *config.Config) {
		c.Limits.RulerMaxRuleGroupsPerTenant, c.Limits.RulerMaxRulesPerRuleGroup = 1, 2
	})
	for i, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			ten := "ruler-err-" + string(rune('a'+i)) // the targets share the rule directory
			post := func(path, body string) response { return tg.rulerDo(t, "POST", path, ten, body) }
			expectAnswer(t, "bad yaml", post("/loki/api/v1/rules/ns", "name: ["), 400, textPlain, "unable to decoded rule group\n")
			expectAnswer(t, "invalid", post("/loki/api/v1/rules/ns", "name: g\nrules:\n  - record: r\n    expr: vector(1)\n    for: 1m\n  - alert: A\n"),
				400, textPlain, "invalid field 'for' in recording rule, field 'expr' must be set in rule\n")
			r := post("/loki/api/v1/rules/ns", "name: g\nrules:\n  - alert: A\n    expr: 'sum(rate({app=\"x\"}[1m])'\n")
			if r.status != 400 || !strings.HasPrefix(string(r.body), "could not parse expression for alert 'A' in group 'g': parse error") {
				t.Errorf("LogQL parse error: %d %q", r.status, r.body)
			}
			expectAnswer(t, "empty name", post("/loki/api/v1/rules/ns", "rules: []\n"), 400, textPlain, "group 0: Groupname must not be empty\n")
			expectAnswer(t, "too many rules", post("/loki/api/v1/rules/ns", "name: g\nrules:\n  - record: a\n    expr: vector(1)\n  - record: b\n    expr: vector(1)\n  - record: c\n    expr: vector(1)\n"),
				400, textPlain, "per-user rules per rule group limit (limit: 2 actual: 3) exceeded\n")
			expectAnswer(t, "log query accepted", post("/loki/api/v1/rules/ns", "name: g\nrules:\n  - alert: A\n    expr: '{app=\"x\"} |= \"e\"'\n"), 202, appJSON, accepted)
			// Loki counts the group anew even when it replaces one.
			expectAnswer(t, "too many groups", post("/loki/api/v1/rules/ns", "name: g\nrules: []\n"),
				400, textPlain, "per-user rule groups limit (limit: 1 actual: 2) exceeded\n")

			// %2F is decoded before routing: a/b is namespace a, group b.
			expectAnswer(t, "encoded slash GET", tg.rulerDo(t, "GET", "/loki/api/v1/rules/ns%2Fg", ten, ""), 200, appYAML,
				"name: g\nrules:\n    - alert: A\n      expr: '{app=\"x\"} |= \"e\"'\n")
			expectAnswer(t, "encoded slash POST", post("/loki/api/v1/rules/a%2Fb", "name: g\n"), 405, "", "")
			if r := post("/loki/api/v1/rules/a%2Fb", "name: g\n"); r.header.Get("Allow") != "" {
				t.Errorf("405 with an Allow header: %v", r.header)
			}
			expectAnswer(t, "PUT list", tg.rulerDo(t, "PUT", "/loki/api/v1/rules", ten, ""), 405, "", "")
			expectAnswer(t, "POST group", tg.rulerDo(t, "POST", "/api/prom/rules/ns/g", ten, ""), 405, "", "")
			expectAnswer(t, "POST prometheus", tg.rulerDo(t, "POST", "/prometheus/api/v1/rules", ten, ""), 405, "", "")
			expectAnswer(t, "three segments", tg.rulerDo(t, "GET", "/loki/api/v1/rules/a/b/c", ten, ""), 404, textPlain, "404 page not found\n")
			expectAnswer(t, "trailing slash", tg.rulerDo(t, "GET", "/loki/api/v1/rules/", ten, ""), 404, textPlain, "404 page not found\n")
			r = tg.rulerDo(t, "DELETE", "/loki/api/v1/rules/ns/..%2Fx", ten, "")
			if r.status != 301 || r.header.Get("Location") != "/loki/api/v1/rules/x" || len(r.body) != 0 {
				t.Errorf("unclean path: %d %v %q", r.status, r.header.Get("Location"), r.body)
			}
			serverError := func(msg string) string {
				return `{"status":"error","data":null,"errorType":"server_error","error":"` + msg + `"}`
			}
			expectAnswer(t, "namespace traversal", tg.rulerDo(t, "GET", "/loki/api/v1/rules/..%252Fx", ten, ""), 500, textPlain,
				serverError("invalid namespace: path traversal not allowed"))
			expectAnswer(t, "group traversal", tg.rulerDo(t, "DELETE", "/loki/api/v1/rules/ns/..%252F..%252Fx", ten, ""), 500, textPlain,
				serverError("invalid groupname: path traversal not allowed"))
			expectAnswer(t, "several tenants, YAML", tg.rulerDo(t, "GET", "/loki/api/v1/rules", "a|b", ""), 500, textPlain, serverError("no org id"))
			expectAnswer(t, "several tenants, JSON", tg.rulerDo(t, "GET", "/prometheus/api/v1/rules", "a|b", ""), 400, textPlain,
				`{"status":"error","data":null,"errorType":"bad_data","error":"too many org ids found"}`)
			expectAnswer(t, "several tenants, alerts", tg.rulerDo(t, "GET", "/prometheus/api/v1/alerts", "a|b", ""), 400, appJSON,
				`{"status":"error","data":null,"errorType":"bad_data","error":"too many org ids found"}`)
			if r := tg.rulerDo(t, "GET", "/loki/api/v1/rules", "", ""); r.status != 401 || string(r.body) != "no org id\n" {
				t.Errorf("no tenant: %d %q", r.status, r.body)
			}
		})
	}
}

// TestRulerReadsLokiFiles: files written in Loki's local layout are
// served; a bad one fails its namespace only, visibly.
func TestRulerReadsLokiFiles(t *testing.T) {
	targets, dir := rulerTargets(t, nil)
	td := filepath.Join(dir, "ruler-files")
	if err := os.MkdirAll(td, 0o755); err != nil {
		t.Fatal(err)
	}
	good := "groups:\n  - name: g\n    rules:\n      - record: r\n        expr: vector(1)\n"
	for name, body := range map[string]string{"good.yaml": good, "bad.yaml": "groups:\n  - name: g\n    nope: 1\n"} {
		if err := os.WriteFile(filepath.Join(td, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			expectAnswer(t, "list", tg.rulerDo(t, "GET", "/api/prom/rules", "ruler-files", ""), 200, appYAML,
				"good.yaml:\n    - name: g\n      rules:\n        - record: r\n          expr: vector(1)\n")
			p := filepath.Join(td, "bad.yaml")
			r := tg.rulerDo(t, "GET", "/api/prom/rules/bad.yaml", "ruler-files", "")
			if r.status != 400 || !strings.HasPrefix(string(r.body), "error parsing "+p+": "+p+": yaml: unmarshal errors:") {
				t.Errorf("bad namespace: %d %q", r.status, r.body)
			}
			r = tg.rulerDo(t, "GET", "/prometheus/api/v1/rules", "ruler-files", "")
			if r.status != 200 || !strings.Contains(string(r.body), `"file":"good.yaml"`) || strings.Contains(string(r.body), "bad.yaml") {
				t.Errorf("state: %d %s", r.status, r.body)
			}
			// The two listings above each left the bad file out, counted.
			if r := tg.rulerDo(t, "GET", "/metrics", "", ""); !strings.Contains(string(r.body), "\nvloki_ruler_rule_file_errors_total 2\n") {
				t.Errorf("bad files not counted")
			}
		})
	}
}

// TestRulerReadOnly: Loki's read-only local store; Grafana's probe then
// shows the rules read-only.
func TestRulerReadOnly(t *testing.T) {
	targets, _ := rulerTargets(t, func(r *config.Ruler) { r.Storage.Local.ReadOnly = true })
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			expectAnswer(t, "probe", tg.rulerDo(t, "GET", "/api/prom/rules/test/test", "ro", ""), 400, textPlain, "GetRuleGroup unsupported in rule local store\n")
			expectAnswer(t, "set", tg.rulerDo(t, "POST", "/api/prom/rules/ns", "ro", "name: g\nrules: []\n"), 500, textPlain, "SetRuleGroup unsupported in rule local store\n")
			expectAnswer(t, "delete", tg.rulerDo(t, "DELETE", "/api/prom/rules/ns", "ro", ""), 500, textPlain,
				`{"status":"error","data":null,"errorType":"server_error","error":"DeleteNamespace unsupported in rule local store"}`)
		})
	}
}
