package noagpl

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the repository's top.
var root = filepath.Join("..", "..", "..")

// lokiMarkers name what builds or runs Loki.
var lokiMarkers = []string{"loki-build.sh", "loki-run.sh", "github.com/grafana/loki/v3", "loki-canary"}

// goMarkers are those of lokiMarkers a Go string may not hold ungated
// ("loki-canary" also names the checker's default stream).
var goMarkers = lokiMarkers[:3]

// gate is the variable that opts a Go test in to building Loki.
const gate = "VLOKI_BUILD_LOKI"

func notToUse(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "not-to-use.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if m, _, _ := strings.Cut(l, "\t"); m != "" && !strings.HasPrefix(m, "#") {
			out = append(out, m)
		}
	}
	if !slices.Contains(out, "github.com/grafana/loki/v3") {
		t.Fatalf("the list lacks Loki's module: %v", out)
	}
	return out
}

// TestNoModuleNotToUse checks that no go.mod or go.sum of the repository
// names a module marked not-to-use (github.com/grafana/loki/pkg/push,
// Apache-2.0, is its own module and allowed).
func TestNoModuleNotToUse(t *testing.T) {
	banned := notToUse(t)
	var files []string
	for _, m := range []string{"go.mod", "deploy/go.mod"} {
		files = append(files, filepath.Join(root, m), filepath.Join(root, strings.TrimSuffix(m, ".mod")+".sum"))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			for _, field := range strings.Fields(l) {
				if slices.Contains(banned, field) {
					t.Errorf("%s:%d names %s, marked not-to-use: %s", f, i+1, field, strings.TrimSpace(l))
				}
			}
		}
	}
}

// rule is a Makefile rule.
type rule struct {
	prereqs []string
	recipe  []string
}

func readMakefile(t *testing.T) map[string]rule {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules := map[string]rule{}
	head := regexp.MustCompile(`^([A-Za-z0-9_.-]+):([^=]*)$`)
	cur := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "\t") && cur != "":
			r := rules[cur]
			r.recipe = append(r.recipe, l)
			rules[cur] = r
		case head.MatchString(l):
			m := head.FindStringSubmatch(l)
			cur = m[1]
			rules[cur] = rule{prereqs: strings.Fields(m[2])}
		case !strings.HasPrefix(l, "\t"):
			cur = ""
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rules
}

var (
	makeTarget = regexp.MustCompile(`\bmake\s+([A-Za-z0-9_.-]+)`)
	scriptRef  = regexp.MustCompile(`([A-Za-z0-9_.-]+\.sh)\b`)
)

// TestMakeTestBuildsNoLoki follows what CI runs (.ci/run, the make targets
// it names, their prerequisites, the scripts their recipes call and the
// scripts those call) and fails where any of it would build or run Loki;
// every go test it runs sets VLOKI_NO_LOKI=1, and loki-build.sh refuses
// under it.
func TestMakeTestBuildsNoLoki(t *testing.T) {
	rules := readMakefile(t)
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, m := range makeTarget.FindAllStringSubmatch(string(ci), -1) {
		targets = append(targets, m[1])
	}
	if !slices.Contains(targets, "test") {
		t.Fatalf(".ci/run runs no make test: %v", targets)
	}
	seen := map[string]bool{}
	var scripts []string
	for len(targets) > 0 {
		name := targets[0]
		targets = targets[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		r, ok := rules[name]
		if !ok {
			t.Fatalf("make %s: no such rule", name)
		}
		for _, p := range r.prereqs {
			if _, ok := rules[p]; ok {
				targets = append(targets, p)
			}
		}
		for _, l := range r.recipe {
			for _, m := range lokiMarkers {
				if strings.Contains(l, m) {
					t.Errorf("make %s runs %q, which names %s", name, strings.TrimSpace(l), m)
				}
			}
			if strings.Contains(l, "$(GO) test") && !strings.Contains(l, "VLOKI_NO_LOKI=1") {
				t.Errorf("make %s runs go test without VLOKI_NO_LOKI=1: %q", name, strings.TrimSpace(l))
			}
			for _, m := range makeTarget.FindAllStringSubmatch(l, -1) {
				targets = append(targets, m[1])
			}
			for _, m := range scriptRef.FindAllStringSubmatch(l, -1) {
				scripts = append(scripts, m[1])
			}
		}
	}
	if len(seen) < 2 {
		t.Fatalf("followed only %v", seen)
	}
	checked := map[string]bool{}
	for len(scripts) > 0 {
		s := scripts[0]
		scripts = scripts[1:]
		if checked[s] {
			continue
		}
		checked[s] = true
		b, err := os.ReadFile(filepath.Join(root, "scripts", s))
		if err != nil {
			t.Errorf("script %s: %v", s, err)
			continue
		}
		for _, m := range lokiMarkers {
			if strings.Contains(string(b), m) {
				t.Errorf("scripts/%s, run by make test, names %s", s, m)
			}
		}
		for _, m := range scriptRef.FindAllStringSubmatch(string(b), -1) {
			if m[1] != s {
				scripts = append(scripts, m[1])
			}
		}
	}
	t.Logf("followed make %v and scripts %v", slices.Sorted(maps.Keys(seen)), slices.Sorted(maps.Keys(checked)))

	b, err := os.ReadFile(filepath.Join(root, "scripts", "loki-build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `if [[ ${VLOKI_NO_LOKI:-} == 1 ]]; then`) {
		t.Error("scripts/loki-build.sh does not refuse under VLOKI_NO_LOKI=1")
	}
}

// TestGoBuildsLokiOnlyWhenAskedTo checks every Go file of the repository:
// a string naming loki-build.sh, loki-run.sh or Loki's module (an import
// included) must sit in a function that checks os.Getenv("VLOKI_BUILD_LOKI")
// before it, so go test ./... never builds Loki unless asked.
func TestGoBuildsLokiOnlyWhenAskedTo(t *testing.T) {
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			abs, _ := filepath.Abs(path)
			if n := d.Name(); abs == self || path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, m := range goMarkers {
				if strings.Contains(s, m) && !gated(f, lit.Pos()) {
					t.Errorf("%s: %q names %s outside a function that first checks os.Getenv(%q)", fset.Position(lit.Pos()), s, m, gate)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files found under %s", files, root)
	}
}

// gated reports whether pos sits in a function that calls
// os.Getenv("VLOKI_BUILD_LOKI") before it.
func gated(f *ast.File, pos token.Pos) bool {
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || pos < fn.Pos() || pos >= fn.End() {
			continue
		}
		found := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || call.Pos() >= pos || len(call.Args) != 1 {
				return !found
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Getenv" {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "os" {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Value == strconv.Quote(gate) {
				found = true
			}
			return !found
		})
		return found
	}
	return false
}

// TestGateIsSeen checks the check itself on a gated and an ungated use.
func TestGateIsSeen(t *testing.T) {
	src := `package x
import "os"
func ok() { if os.Getenv("VLOKI_BUILD_LOKI") != "1" { return }; _ = "scripts/loki-build.sh" }
func bad() { _ = "scripts/loki-build.sh"; _ = os.Getenv("VLOKI_BUILD_LOKI") }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []bool
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && strings.Contains(lit.Value, "loki-build.sh") {
			got = append(got, gated(f, lit.Pos()))
		}
		return true
	})
	if !slices.Equal(got, []bool{true, false}) {
		t.Errorf("gated: %v, want [true false]", got)
	}
}
