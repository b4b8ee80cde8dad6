package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// rulerStep is one request of Grafana's sequence against a Loki data
// source's rules API.
type rulerStep struct {
	id, method, path, body string
	// other sends the request as another tenant.
	other bool
	// synced: Loki's ruler lists rule groups in /prometheus/api/v1/rules
	// only after its next sync (vloki at once, docs/ruler.md): recording,
	// wait for that sync first.
	synced bool
	// grafana names what Grafana's strict YAML decoding reads the answer
	// into: "namespaces", "group" or "".
	grafana string
}

// rulerAnswer is a recorded answer, with its request for the reader.
type rulerAnswer struct {
	ID          string `json:"id"`
	Method      string `json:"method"`
	Path        string `json:"path"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	Body        string `json:"body"`
}

const grafanaG1 = `name: g1
interval: 1m30s
rules:
  - alert: HighErrors
    expr: sum by (app) (count_over_time({app="api"} |= "error" [5m])) > 10
    for: 2m
    labels:
      severity: page
    annotations:
      summary: '{{ $labels.app }} has {{ $value }} errors'
  - record: app:errors:rate5m
    expr: sum by (app) (rate({app="api"}[5m]))
`

// grafanaSequence: Grafana's probe, list, create, read back, state and
// delete through the legacy prefix it uses (and Loki's own), with the
// error answers around them.
func grafanaSequence() []rulerStep {
	get := func(id, path string) rulerStep { return rulerStep{id: id, method: "GET", path: path} }
	state := func(id, path string) rulerStep { return rulerStep{id: id, method: "GET", path: path, synced: true} }
	return []rulerStep{
		get("rules before", "/prometheus/api/v1/rules"),
		// The probe finds a writable ruler: 404 "group does not exist".
		get("probe", "/api/prom/rules/test/test"),
		get("empty list", "/api/prom/rules"),
		{id: "create g1", method: "POST", path: "/api/prom/rules/ns%201", body: grafanaG1},
		{id: "create g0", method: "POST", path: "/api/prom/rules/a-ns", body: "name: g0\nrules:\n  - record: x\n    expr: vector(1)\n"},
		{id: "list", method: "GET", path: "/api/prom/rules", grafana: "namespaces"},
		{id: "namespace", method: "GET", path: "/loki/api/v1/rules/ns%201", grafana: "namespaces"},
		{id: "group", method: "GET", path: "/api/prom/rules/ns%201/g1", grafana: "group"},
		state("state", "/prometheus/api/v1/rules"),
		state("type=alert", "/prometheus/api/v1/rules?type=ALERT"),
		state("type=record&file", "/prometheus/api/v1/rules?type=record&file=ns+1"),
		state("rule_name", "/prometheus/api/v1/rules?rule_name=x&rule_name=HighErrors"),
		state("rule_group", "/prometheus/api/v1/rules?rule_group=g0"),
		state("type=bogus", "/prometheus/api/v1/rules?type=Bogus"),
		state("alerts", "/prometheus/api/v1/alerts"),
		{id: "labels filter", method: "GET", path: "/api/prom/rules?labels=severity:page,x:y", grafana: "namespaces"},
		get("labels filter without a colon", "/api/prom/rules?labels=severity"),
		{id: "other tenant", method: "GET", path: "/api/prom/rules", other: true},
		{id: "delete group", method: "DELETE", path: "/api/prom/rules/ns%201/g1"},
		{id: "delete group again", method: "DELETE", path: "/api/prom/rules/ns%201/g1"},
		{id: "delete namespace", method: "DELETE", path: "/loki/api/v1/rules/a-ns"},
		{id: "delete namespace again", method: "DELETE", path: "/loki/api/v1/rules/a-ns"},
		get("list after", "/api/prom/rules"),
		state("rules after", "/prometheus/api/v1/rules"),
	}
}

// runSequence sends the steps as tenant (others as other) and returns
// the answers; wait runs before a synced step that follows a change.
func runSequence(t *testing.T, tg target, tenant, other string, steps []rulerStep, wait func()) []rulerAnswer {
	t.Helper()
	var out []rulerAnswer
	changed := false
	for _, s := range steps {
		if s.synced && changed && wait != nil {
			wait()
		}
		changed = changed || s.method != "GET"
		if s.synced {
			changed = false
		}
		ten := tenant
		if s.other {
			ten = other
		}
		var hdr map[string]string
		if s.method == "POST" {
			hdr = map[string]string{"Content-Type": "application/yaml"} // as Grafana sends
		}
		r := tg.do(t, s.method, s.path, ten, []byte(s.body), hdr)
		out = append(out, rulerAnswer{ID: s.id, Method: s.method, Path: s.path, Status: r.status,
			ContentType: r.header.Get("Content-Type"), Body: string(r.body)})
	}
	return out
}

// TestRulerGrafanaSequence: vloki answers Grafana's sequence as Loki
// v3.7.8 with a writable rule store does (testdata/ruler_api_loki.json,
// recorded by make ruler-api-record), and Grafana's strict decoding
// reads every YAML answer.
func TestRulerGrafanaSequence(t *testing.T) {
	steps := grafanaSequence()
	golden := filepath.Join("testdata", "ruler_api_loki.json")
	if lokiURL := os.Getenv("RULER_API_RECORD_LOKI_URL"); lokiURL != "" {
		recordGrafanaSequence(t, target{name: "loki", url: lokiURL}, steps, golden)
		return
	}
	var loki []rulerAnswer
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &loki); err != nil {
		t.Fatal(err)
	}
	if len(loki) != len(steps) {
		t.Fatalf("%s has %d answers for %d steps: run make ruler-api-record", golden, len(loki), len(steps))
	}
	targets, _ := rulerTargets(t, nil)
	for i, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			ten := fmt.Sprintf("ruler-graf-%c", 'a'+i) // the targets share the rule directory
			got := runSequence(t, tg, ten, ten+"-other", steps, nil)
			for j, s := range steps {
				want := loki[j]
				if want.Method != s.method || want.Path != s.path {
					t.Fatalf("%s: recorded %s %s, the step is %s %s: run make ruler-api-record", s.id, want.Method, want.Path, s.method, s.path)
				}
				if got[j] != want {
					t.Errorf("%s: %d %q %q\nLoki: %d %q %q", s.id, got[j].Status, got[j].ContentType, got[j].Body,
						want.Status, want.ContentType, want.Body)
				}
				checkGrafanaDecodes(t, s, got[j])
			}
		})
	}
}

func checkGrafanaDecodes(t *testing.T, s rulerStep, a rulerAnswer) {
	t.Helper()
	switch s.grafana {
	case "namespaces":
		var all map[string][]grafanaGroup
		grafanaDecodes(t, []byte(a.Body), &all)
		if len(all) == 0 {
			t.Errorf("%s: no namespace decoded from %q", s.id, a.Body)
		}
	case "group":
		var one grafanaGroup
		grafanaDecodes(t, []byte(a.Body), &one)
		if one.Name == "" || len(one.Rules) == 0 {
			t.Errorf("%s: no group decoded from %q", s.id, a.Body)
		}
	}
}

// lastEvaluation is a rule's or group's last evaluation in a JSON answer.
var lastEvaluation = regexp.MustCompile(`"lastEvaluation":"([^"]*)"`)

// evaluatedDuring says whether an answer shows an evaluation.
func evaluatedDuring(answers []rulerAnswer) bool {
	for _, a := range answers {
		for _, m := range lastEvaluation.FindAllStringSubmatch(a.Body, -1) {
			if m[1] != "0001-01-01T00:00:00Z" {
				return true
			}
		}
	}
	return false
}

// recordGrafanaSequence asks Loki (auth on, writable rule store, a 1s
// poll_interval) and writes its answers. A rule evaluated before its
// state was read would make the answers depend on when its slot fell,
// so such a run is discarded and the sequence run again as a new tenant
// (whose groups have other slots).
func recordGrafanaSequence(t *testing.T, loki target, steps []rulerStep, golden string) {
	for attempt := range 5 {
		ten := fmt.Sprintf("grafana-%d-%d", time.Now().Unix(), attempt)
		answers := runSequence(t, loki, ten, ten+"-other", steps, func() { time.Sleep(3 * time.Second) })
		if evaluatedDuring(answers) {
			t.Logf("attempt %d: a rule was evaluated during the sequence; again", attempt)
			continue
		}
		b, err := json.MarshalIndent(answers, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatal("every attempt saw an evaluation")
}
