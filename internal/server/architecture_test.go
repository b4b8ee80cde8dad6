package server

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestArchitectureNamesEveryPackage holds docs/architecture.md's package
// map to the code: every directory of Go files under cmd/ and internal/
// has a row, and every row names one.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `((?:cmd|internal)/[^`]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
	}
	have := goPackages(t, root)
	for _, p := range have {
		if !named[p] {
			t.Errorf("docs/architecture.md has no row for %s", p)
		}
	}
	for p := range named {
		if !slices.Contains(have, p) {
			t.Errorf("docs/architecture.md names %s, which holds no Go files", p)
		}
	}
}

// goPackages lists the directories under cmd/ and internal/ holding Go
// files, testdata left out.
func goPackages(t *testing.T, root string) []string {
	var out []string
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err == nil && !slices.Contains(out, filepath.ToSlash(rel)) {
				out = append(out, filepath.ToSlash(rel))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}
