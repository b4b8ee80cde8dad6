package api

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// belowServices are the packages handlers reach only through a service
// (engine, querier, live/tail): the storage client, the planner, the
// executors and the LogsQL builder.
var belowServices = []string{
	"github.com/vloki/vloki/internal/storage/backend",
	"github.com/vloki/vloki/internal/read/plan",
	"github.com/vloki/vloki/internal/read/logs",
	"github.com/vloki/vloki/internal/read/metric",
	"github.com/vloki/vloki/internal/read/stages",
	"github.com/vloki/vloki/internal/read/logrow",
	"github.com/vloki/vloki/internal/read/indexstats",
	"github.com/vloki/vloki/internal/live/livetail",
	"github.com/vloki/vloki/internal/lang/logsql",
}

// TestHandlersImportOnlyServices: no non-test file of the API imports
// what lies below the services, so a handler only decodes, calls one
// service and encodes.
func TestHandlersImportOnlyServices(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		checked++
		for _, path := range importsOf(t, name) {
			for _, below := range belowServices {
				if path == below || strings.HasPrefix(path, below+"/") {
					t.Errorf("%s imports %s: reach it through a service", name, path)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files checked: run from internal/edge/api", checked)
	}
}

// importsOf lists the import paths of a Go file.
func importsOf(t *testing.T, name string) []string {
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, path)
	}
	return out
}
