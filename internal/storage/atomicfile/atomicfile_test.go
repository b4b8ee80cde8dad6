package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteReplacesWhole: the file holds the new data, its directory is
// created, and no temporary file is left beside it.
func TestWriteReplacesWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "f.json")
	for _, data := range []string{"first", "second, longer"} {
		if err := Write(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("%q %v, want %q", got, err, data)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d entries, want only the file", len(entries))
	}
}
