// An external test package: eval imports the storage client, which
// imports metrics.
package metrics_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metricsql"
	"gopkg.in/yaml.v3"

	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/ruler/eval"
)

// TestDeployUsesExposedMetrics: every expression of the Grafana dashboard
// and of the alert rules in deploy/ parses as PromQL and names only
// metrics vloki exposes (a histogram through its _bucket, _sum, _count),
// the ruler's among them (eval.MetricNames, which eval's tests check are
// exposed).
func TestDeployUsesExposedMetrics(t *testing.T) {
	exposed := exposedNames()
	exprs := append(dashboardExprs(t), alertExprs(t)...)
	if len(exprs) < 10 {
		t.Fatalf("only %d expressions found", len(exprs))
	}
	for _, expr := range exprs {
		e, err := metricsql.Parse(strings.ReplaceAll(expr, "$__rate_interval", "5m"))
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		metricsql.VisitAll(e, func(e metricsql.Expr) {
			me, ok := e.(*metricsql.MetricExpr)
			if !ok || len(me.LabelFilterss) == 0 {
				return
			}
			name := me.LabelFilterss[0][0].Value
			if !exposed[name] {
				t.Errorf("%s: vloki exposes no metric %s", expr, name)
			}
		})
	}
}

// exposedNames are the series names vloki's registry can produce, with
// every collector the server registers.
func exposedNames() map[string]bool {
	m := metrics.New()
	m.RegisterFrontend(func() metrics.FrontendFigures { return metrics.FrontendFigures{} })
	m.RegisterExtents(func() metrics.ExtentFigures { return metrics.ExtentFigures{} })
	m.RegisterRuntime(func() metrics.RuntimeFigures { return metrics.RuntimeFigures{} })
	m.RegisterPeers(func() bool { return true }, func() int64 { return 0 })
	histograms := []string{"vloki_request_duration_seconds", "vloki_backend_request_duration_seconds", "vloki_backend_requests_per_request"}
	out := map[string]bool{}
	for _, n := range append(m.Names(), eval.MetricNames...) {
		out[n] = true
		if slices.Contains(histograms, n) {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				out[n+suffix] = true
			}
		}
	}
	return out
}

func dashboardExprs(t *testing.T) []string {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "deploy", "grafana", "vloki-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	return out
}

func alertExprs(t *testing.T) []string {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "deploy", "prometheus", "vloki-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Name  string
			Rules []struct {
				Alert, Expr, For string
				Labels           map[string]string
				Annotations      map[string]string
			}
		}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&rules); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %+v lacks a name, severity or summary", r)
			}
			out = append(out, r.Expr)
		}
	}
	return out
}
