// Package atomicfile replaces a file whole or not at all: the data goes to
// a temporary file in the same directory, is synced, and is renamed over
// the old one; the directory is synced after. Readers see the old file or
// the new one, never a part, even across a crash.
package atomicfile

import (
	"os"
	"path/filepath"
)

// TempPrefix starts the names of the temporary files, so that readers of
// the directory can skip them.
const TempPrefix = ".tmp-"

// Write replaces path with data (mode 0644), creating its directory.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, TempPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir makes a directory's entries (a rename, a removal) durable where
// the file system supports it.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // not supported everywhere; the rename is what matters
	return nil
}
