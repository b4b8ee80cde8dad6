package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceIsCurrent: docs/configuration.md is what Reference
// generates from the flags (VLOKI_UPDATE_DOCS=1, or make docs, rewrites it).
func TestReferenceIsCurrent(t *testing.T) {
	want, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "configuration.md")
	if os.Getenv("VLOKI_UPDATE_DOCS") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: run make docs", path)
	}
}

// TestReadmeNamesEverySetting: the settings table (docs/settings.md, which
// the README links) names every flag (and every YAML-only key).
func TestReadmeNamesEverySetting(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	settings, err := Settings()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range settings {
		name := s.Flag
		if name == "" {
			name = s.YAML
		}
		if !strings.Contains(string(readme), "`"+name+"`") {
			t.Errorf("docs/settings.md does not name %s", name)
		}
	}
}
