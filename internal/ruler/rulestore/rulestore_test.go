package rulestore

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestYAMLLayoutIsLokis: the reference's listing, produced by Loki's
// marshaller (4-space indentation, sorted keys, Loki's fields only).
func TestYAMLLayoutIsLokis(t *testing.T) {
	out := map[string][]Group{
		"a-ns": {{Name: "g0", Rules: []Rule{{Record: "x", Expr: "vector(1)"}}}},
		"ns/b": {{Name: "g1", Interval: model.Duration(90 * time.Second), Rules: []Rule{
			{Alert: "HighErrors", Expr: `sum by (app) (count_over_time({app="api"} |= "error" [5m])) > 10`,
				For: model.Duration(2 * time.Minute), Labels: map[string]string{"severity": "page", "b": "x"},
				Annotations: map[string]string{"summary": "{{ $labels.app }} has {{ $value }} errors"}},
			{Record: "app:errors:rate5m", Expr: "sum by (app)(\n  rate({app=\"api\"}[5m])\n)"},
		}}},
	}
	b, err := yaml.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	want := `a-ns:
    - name: g0
      rules:
        - record: x
          expr: vector(1)
ns/b:
    - name: g1
      interval: 1m30s
      rules:
        - alert: HighErrors
          expr: sum by (app) (count_over_time({app="api"} |= "error" [5m])) > 10
          for: 2m
          labels:
            b: x
            severity: page
          annotations:
            summary: '{{ $labels.app }} has {{ $value }} errors'
        - record: app:errors:rate5m
          expr: |-
            sum by (app)(
              rate({app="api"}[5m])
            )
`
	if string(b) != want {
		t.Errorf("got:\n%s\nwant:\n%s", b, want)
	}
}

// TestValidateTexts: Loki's ValidateGroups texts, one per rule.
func TestValidateTexts(t *testing.T) {
	rec := func(name, expr string) Rule { return Rule{Record: name, Expr: expr} }
	cases := []struct {
		groups []Group
		want   string
	}{
		{[]Group{{Name: ""}}, "group 0: Groupname must not be empty"},
		{[]Group{{Name: "a"}, {Name: "a"}}, `groupname: "a" is repeated in the same file`},
		{[]Group{{Name: "g", Rules: []Rule{{Record: "r", Alert: "a", Expr: "vector(1)"}}}}, "only one of 'record' and 'alert' must be set"},
		{[]Group{{Name: "g", Rules: []Rule{{Expr: "vector(1)"}}}}, "one of 'record' or 'alert' must be set"},
		{[]Group{{Name: "g", Rules: []Rule{{Record: "r"}}}}, "field 'expr' must be set in rule"},
		{[]Group{{Name: "g", Rules: []Rule{rec("r", `{app="x"`)}}}, "could not parse expression for record 'r' in group 'g': parse error"},
		{[]Group{{Name: "g", Rules: []Rule{{Alert: "A", Expr: `sum(`}}}}, "could not parse expression for alert 'A' in group 'g': parse error"},
		{[]Group{{Name: "g", Rules: []Rule{{Record: "r", Expr: "vector(1)", Annotations: map[string]string{"a": "b"}}}}}, "invalid field 'annotations' in recording rule"},
		{[]Group{{Name: "g", Rules: []Rule{{Record: "r", Expr: "vector(1)", For: model.Duration(time.Minute)}}}}, "invalid field 'for' in recording rule"},
		{[]Group{{Name: "g", Rules: []Rule{rec("r-1", "vector(1)")}}}, "invalid recording rule name: r-1"},
		{[]Group{{Name: "g", Rules: []Rule{{Record: "r", Expr: "vector(1)", Labels: map[string]string{"__name__": "x"}}}}}, "invalid label name: __name__"},
		{[]Group{{Name: "g", Rules: []Rule{{Alert: "A", Expr: "vector(1)", Labels: map[string]string{"a.b": "x"}}}}}, "invalid label name: a.b"},
		{[]Group{{Name: "g", Rules: []Rule{{Alert: "A", Expr: "vector(1)", Labels: map[string]string{"a": "\xff"}}}}}, "invalid label value: \xff"},
		{[]Group{{Name: "g", Rules: []Rule{{Alert: "A", Expr: "vector(1)", Annotations: map[string]string{"a-b": "x"}}}}}, "invalid annotation name: a-b"},
		{[]Group{{Name: "g", Rules: []Rule{{Alert: "A", Expr: "vector(1)", Labels: map[string]string{"s": "{{ nope }}"}}}}},
			`label "s": template: __alert_A:1: function "nope" not defined`},
		{[]Group{{Name: "g", Rules: []Rule{{Alert: "A", Expr: "vector(1)", Annotations: map[string]string{"s": "{{ $externalURL }}"}}}}},
			`annotation "s": template: __alert_A:1: undefined variable "$externalURL"`},
	}
	for _, c := range cases {
		errs := Validate(c.groups...)
		if len(errs) == 0 || !strings.HasPrefix(JoinErrors(errs), c.want) {
			t.Errorf("want %q, got %v", c.want, errs)
		}
	}
	ok := Group{Name: "g", Rules: []Rule{
		{Alert: "A", Expr: `sum(count_over_time({app="x"}[5m])) > 1`, For: model.Duration(time.Minute),
			Labels: map[string]string{"severity": "{{ $labels.app | toUpper }}"}, Annotations: map[string]string{"summary": "{{ $value | humanize }} {{ $externalLabels }}"}},
		{Record: "app:x:rate", Expr: `rate({app="x"}[1m])`},
		{Alert: "LogQuery", Expr: `{app="x"} |= "err"`}, // log queries pass validation, as in Loki
		{Record: "empty"},
	}}
	errs := Validate(ok, Group{Name: "g"})
	if JoinErrors(errs) != `field 'expr' must be set in rule, groupname: "g" is repeated in the same file` {
		t.Errorf("errors joined in Loki's order: %q", JoinErrors(errs))
	}
}

func TestParseFileStrictAndPostLenient(t *testing.T) {
	if _, err := ParseFile([]byte("groups:\n  - name: g\n    bogus: 1\n    rules: []\n")); err == nil || !strings.Contains(err.Error(), "field bogus not found") {
		t.Errorf("unknown key in a file: %v", err)
	}
	// Prometheus' keys Loki drops are accepted in files: group labels
	// are dropped, as by Loki; query_offset and an alert's
	// keep_firing_for are kept (vloki evaluates them), a recording
	// rule's keep_firing_for is dropped.
	gs, err := ParseFile([]byte("groups:\n  - name: g\n    query_offset: 1m\n    labels: {a: b}\n    rules:\n      - alert: A\n        expr: vector(1)\n        keep_firing_for: 5m\n      - record: r\n        expr: vector(1)\n        keep_firing_for: 5m\n"))
	if err != nil || len(gs) != 1 || gs[0].Rules[0].Alert != "A" {
		t.Fatalf("%v %v", gs, err)
	}
	b, _ := MarshalFile(gs)
	want := "groups:\n    - name: g\n      query_offset: 1m\n      rules:\n        - alert: A\n          expr: vector(1)\n          keep_firing_for: 5m\n        - record: r\n          expr: vector(1)\n"
	if string(b) != want {
		t.Errorf("written:\n%s\nwant:\n%s", b, want)
	}
	// Without them, the group prints as Loki prints it.
	b, _ = MarshalFile([]Group{{Name: "g", Rules: []Rule{{Alert: "A", Expr: "vector(1)"}}}})
	if strings.Contains(string(b), "query_offset") || strings.Contains(string(b), "keep_firing_for") {
		t.Errorf("unset fields written: %s", b)
	}
	// A POSTed group keeps them too.
	g, err := ParseGroup([]byte("name: g\nquery_offset: 30s\nrules:\n  - alert: A\n    expr: vector(1)\n    keep_firing_for: 2m\n"))
	if err != nil || g.QueryOffset == nil || time.Duration(*g.QueryOffset) != 30*time.Second || time.Duration(g.Rules[0].KeepFiringFor) != 2*time.Minute {
		t.Errorf("posted group: %+v %v", g, err)
	}
	if _, err := ParseGroup([]byte("name: g\nunknown: 1\nrules: []\n")); err != nil {
		t.Errorf("POST bodies are decoded leniently: %v", err)
	}
	if _, err := ParseGroup([]byte("name: [")); err != ErrDecode || err.Error() != "unable to decoded rule group" {
		t.Errorf("bad body: %v", err)
	}
}

func TestStoreWritesAndReads(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, false, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if nss, err := s.List("t1"); err != nil || len(nss) != 0 {
		t.Fatalf("a tenant without a directory has no namespaces: %v %v", nss, err)
	}
	if _, err := s.Group("t1", "test", "test"); !errors.Is(err, ErrGroupNotFound) {
		t.Fatalf("Grafana's probe: %v", err)
	}
	g1 := Group{Name: "g1", Rules: []Rule{{Record: "a:b", Expr: "vector(1)"}}}
	g2 := Group{Name: "g2", Interval: model.Duration(time.Minute), Rules: []Rule{{Alert: "A", Expr: "vector(1) > 0"}}}
	for _, g := range []Group{g1, g2} {
		if err := s.SetGroup("t1", "ns", g); err != nil {
			t.Fatal(err)
		}
	}
	g1.Rules[0].Expr = "vector(2)" // replaced where it stands
	if err := s.SetGroup("t1", "ns", g1); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "t1", "ns"))
	if err != nil {
		t.Fatal(err)
	}
	want := "groups:\n    - name: g1\n      rules:\n        - record: a:b\n          expr: vector(2)\n    - name: g2\n      interval: 1m\n      rules:\n        - alert: A\n          expr: vector(1) > 0\n"
	if string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
	if g, err := s.Group("t1", "ns", "g2"); err != nil || g.Rules[0].Alert != "A" {
		t.Errorf("group: %v %v", g, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "t1"))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	// Loki's writable store deletes a missing group without an error.
	if err := s.DeleteGroup("t1", "ns", "nope"); err != nil {
		t.Errorf("delete missing group: %v", err)
	}
	if err := s.DeleteGroup("t1", "nowhere", "nope"); err != nil {
		t.Errorf("delete a group of a missing namespace: %v", err)
	}
	if err := s.DeleteGroup("t1", "ns", "g1"); err != nil {
		t.Fatal(err)
	}
	if gs, err := s.Namespace("t1", "ns"); err != nil || len(gs) != 1 || gs[0].Name != "g2" {
		t.Errorf("after deleting g1: %v %v", gs, err)
	}
	if err := s.DeleteGroup("t1", "ns", "g2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "t1", "ns")); !os.IsNotExist(err) {
		t.Errorf("the file goes with its last group: %v", err)
	}
	if err := s.DeleteNamespace("t1", "ns"); !errors.Is(err, ErrNamespaceNotFound) || err.Error() != "group namespace does not exist" {
		t.Errorf("delete missing namespace: %v", err)
	}
	_, err = s.Namespace("t1", "ns")
	p := filepath.Join(dir, "t1", "ns")
	if err == nil || err.Error() != "error parsing "+p+": "+p+": open "+p+": no such file or directory" {
		t.Errorf("missing namespace, Loki's local store text: %v", err)
	}
	if err := s.SetGroup("t1", "a/b", g1); err == nil {
		t.Error("a namespace with a slash cannot be a file")
	}
}

// TestBadFileFailsItsNamespaceOnly: Loki fails the whole tenant (and the
// sync of every tenant); here the other namespaces are still listed.
func TestBadFileFailsItsNamespaceOnly(t *testing.T) {
	dir := t.TempDir()
	td := filepath.Join(dir, "fake")
	if err := os.MkdirAll(filepath.Join(td, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(td, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bad.yaml", "groups:\n  - name: g\n    rules:\n      - record: r\n        expr: '{app=\"x\"'\n")
	write("good.yaml", "groups:\n  - name: g\n    rules:\n      - record: r\n        expr: 'sum(rate({app=\"x\"}[1m]))'\n")
	write(".hidden", "groups: []\n")
	write("subdir/x.yaml", "not: rules\n")
	s, _ := Open(dir, true, quiet())
	nss, err := s.List("fake")
	if err != nil || len(nss) != 3 {
		t.Fatalf("%v %v", nss, err)
	}
	if nss[0].Name != ".hidden" || nss[0].Err != nil || nss[1].Name != "bad.yaml" || nss[2].Name != "good.yaml" || nss[2].Err != nil || len(nss[2].Groups) != 1 {
		t.Errorf("listing: %+v", nss)
	}
	p := filepath.Join(td, "bad.yaml")
	if nss[1].Err == nil || !strings.HasPrefix(nss[1].Err.Error(), "error parsing "+p+": "+p+": could not parse expression for record 'r' in group 'g': parse error") {
		t.Errorf("bad file: %v", nss[1].Err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{s.SetGroup("fake", "x", Group{Name: "g"}), "SetRuleGroup unsupported in rule local store"},
		{s.DeleteGroup("fake", "x", "g"), "DeleteRuleGroup unsupported in rule local store"},
		{s.DeleteNamespace("fake", "x"), "DeleteNamespace unsupported in rule local store"},
		{func() error { _, err := s.Group("fake", "test", "test"); return err }(), "GetRuleGroup unsupported in rule local store"},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("read-only: %v, want %q", c.err, c.want)
		}
	}
}

// TestConfigMapLayout: a Kubernetes ConfigMap mounted as a tenant's
// directory (the Helm chart's ruler.rules) is read as its files: the
// ..data link and the timestamped directory are directories, skipped;
// the files are links into them, followed.
func TestConfigMapLayout(t *testing.T) {
	dir := t.TempDir()
	td := filepath.Join(dir, "fake")
	stamped := filepath.Join(td, "..2026_11_26_10_00_00.123")
	if err := os.MkdirAll(stamped, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "groups:\n  - name: app\n    rules:\n      - record: a\n        expr: vector(1)\n"
	if err := os.WriteFile(filepath.Join(stamped, "app.yaml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"..data": "..2026_11_26_10_00_00.123", "app.yaml": "..data/app.yaml"} {
		if err := os.Symlink(to, filepath.Join(td, link)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(dir, true, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	tenants, err := s.Tenants()
	if err != nil || len(tenants) != 1 || tenants[0] != "fake" {
		t.Fatalf("tenants %v %v", tenants, err)
	}
	nss, err := s.List("fake")
	if err != nil || len(nss) != 1 || nss[0].Name != "app.yaml" || nss[0].Err != nil || len(nss[0].Groups) != 1 || nss[0].Groups[0].Name != "app" {
		t.Fatalf("namespaces %+v %v", nss, err)
	}
}
