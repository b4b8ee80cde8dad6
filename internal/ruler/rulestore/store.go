package rulestore

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/vloki/vloki/internal/storage/atomicfile"
)

// Errors the API answers with Loki's texts.
var (
	// ErrGroupNotFound: the group is not in the namespace.
	ErrGroupNotFound = errors.New("group does not exist")
	// ErrNamespaceNotFound: the namespace has no groups.
	ErrNamespaceNotFound = errors.New("group namespace does not exist")
	// ErrNoRuleGroups: nothing to list.
	ErrNoRuleGroups = errors.New("no rule groups found")
)

// ReadOnlyError is what Loki's read-only local store answers to an
// operation it does not support (e.g. "GetRuleGroup unsupported in rule
// local store").
type ReadOnlyError struct{ Op string }

func (e *ReadOnlyError) Error() string { return e.Op + " unsupported in rule local store" }

// NameError is a namespace that cannot be a file name (vloki's; Loki's
// bucket store encodes names, its local store cannot be written).
type NameError struct{ Namespace string }

func (e *NameError) Error() string {
	return fmt.Sprintf("namespace %q cannot be a file name in the local rule store", e.Namespace)
}

// tmpPrefix marks the store's temporary files, which listings skip.
const tmpPrefix = atomicfile.TempPrefix

// Store is a directory of tenants' rule files.
type Store struct {
	dir      string
	readOnly bool
	log      *slog.Logger
	mu       sync.Mutex // serialises read-modify-write of namespace files
	// OnBadFile, when set, is told of each namespace a listing leaves
	// out (a metric counts them).
	OnBadFile func(tenant, namespace string, err error)
	// OnChange, when set, is told of each tenant whose rules the API
	// changed (the evaluator re-syncs it).
	OnChange func(tenant string)
}

// Tenants lists the tenants that have a directory in the store, in name
// order.
func (s *Store) Tenants() ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if _, err := s.tenantDir(e.Name()); err != nil || strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		if info, err := os.Stat(filepath.Join(s.dir, e.Name())); err == nil && info.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

func (s *Store) changed(tenant string) {
	if s.OnChange != nil {
		s.OnChange(tenant)
	}
}

// Open returns the store at dir; directories are created as groups are
// written. A read-only store answers
// writes and GetRuleGroup as Loki's local store does.
func Open(dir string, readOnly bool, log *slog.Logger) (*Store, error) {
	if dir == "" {
		return nil, errors.New("directory required for local rules config")
	}
	if log == nil {
		log = slog.Default()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Store{dir: abs, readOnly: readOnly, log: log}, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// ReadOnly reports whether the API may change the store.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Namespace is one file's groups, or why they could not be read.
type Namespace struct {
	Name   string
	Groups []Group
	Err    error
}

func (s *Store) tenantDir(tenant string) (string, error) {
	if tenant == "" || !filepath.IsLocal(tenant) || strings.ContainsAny(tenant, `/\`) {
		return "", fmt.Errorf("invalid tenant %q", tenant)
	}
	return filepath.Join(s.dir, tenant), nil
}

func (s *Store) path(tenant, namespace string) (string, error) {
	dir, err := s.tenantDir(tenant)
	if err != nil {
		return "", err
	}
	if namespace == "" || !filepath.IsLocal(namespace) || strings.ContainsAny(namespace, "/\\\x00") {
		return "", &NameError{namespace}
	}
	return filepath.Join(dir, namespace), nil
}

// List reads every namespace of the tenant, in file-name order: each
// regular file (symlinks followed, subdirectories skipped), hidden ones
// too, as Loki's local store. A file that fails to read or validate is
// returned with its error and logged; the others are still listed. A
// tenant without a directory has no namespaces.
func (s *Store) List(tenant string) ([]Namespace, error) {
	dir, err := s.tenantDir(tenant)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("unable to read rule dir %s: %w", dir, err)
	}
	var out []Namespace
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				out = append(out, s.failed(tenant, name, fmt.Errorf("unable to stat rule file %s: %w", filepath.Join(dir, name), err)))
				continue
			}
			isDir = fi.IsDir()
		}
		if isDir {
			continue
		}
		groups, err := s.read(filepath.Join(dir, name))
		if err != nil {
			out = append(out, s.failed(tenant, name, err))
			continue
		}
		out = append(out, Namespace{Name: name, Groups: groups})
	}
	return out, nil
}

func (s *Store) failed(tenant, namespace string, err error) Namespace {
	s.log.Warn("rule namespace skipped", "tenant", tenant, "namespace", namespace, "err", err)
	if s.OnBadFile != nil {
		s.OnBadFile(tenant, namespace, err)
	}
	return Namespace{Name: namespace, Err: err}
}

// read parses a namespace file; errors carry Loki's text, "error parsing
// <path>: <path>: <cause>".
func (s *Store) read(path string) ([]Group, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		var groups []Group
		if groups, err = ParseFile(b); err == nil {
			return groups, nil
		}
	}
	return nil, fmt.Errorf("error parsing %s: %s: %w", path, path, err)
}

// Namespace reads one namespace. A missing file answers Loki's local
// store error (open … no such file or directory).
func (s *Store) Namespace(tenant, namespace string) ([]Group, error) {
	p, err := s.path(tenant, namespace)
	if err != nil {
		return nil, err
	}
	return s.read(p)
}

// Group returns one group; ErrGroupNotFound when the namespace or the
// group does not exist.
func (s *Store) Group(tenant, namespace, name string) (Group, error) {
	if s.readOnly {
		return Group{}, &ReadOnlyError{"GetRuleGroup"}
	}
	groups, err := s.existing(tenant, namespace)
	if err != nil {
		return Group{}, err
	}
	for _, g := range groups {
		if g.Name == name {
			return g, nil
		}
	}
	return Group{}, ErrGroupNotFound
}

// existing reads a namespace that may be absent (nil, no error).
func (s *Store) existing(tenant, namespace string) ([]Group, error) {
	p, err := s.path(tenant, namespace)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return s.read(p)
}

// CountGroups is how many groups the tenant has in readable files.
func (s *Store) CountGroups(tenant string) (int, error) {
	nss, err := s.List(tenant)
	n := 0
	for _, ns := range nss {
		n += len(ns.Groups)
	}
	return n, err
}

// SetGroup adds the group to the namespace, or replaces the group of the
// same name where it stands.
func (s *Store) SetGroup(tenant, namespace string, g Group) error {
	if s.readOnly {
		return &ReadOnlyError{"SetRuleGroup"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	groups, err := s.existing(tenant, namespace)
	if err != nil {
		return err
	}
	replaced := false
	for i := range groups {
		if groups[i].Name == g.Name {
			groups[i], replaced = g, true
		}
	}
	if !replaced {
		groups = append(groups, g)
	}
	return s.write(tenant, namespace, groups)
}

// DeleteNamespace removes the namespace file.
func (s *Store) DeleteNamespace(tenant, namespace string) error {
	if s.readOnly {
		return &ReadOnlyError{"DeleteNamespace"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.path(tenant, namespace)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ErrNamespaceNotFound
		}
		return err
	}
	s.changed(tenant)
	return atomicfile.SyncDir(filepath.Dir(p))
}

// DeleteGroup removes one group; the namespace file goes with its last
// group. A group that is not there is deleted too, as Loki's writable
// (filesystem bucket) store deletes it: no error.
func (s *Store) DeleteGroup(tenant, namespace, name string) error {
	if s.readOnly {
		return &ReadOnlyError{"DeleteRuleGroup"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	groups, err := s.existing(tenant, namespace)
	if err != nil {
		return err
	}
	kept := groups[:0:0]
	for _, g := range groups {
		if g.Name != name {
			kept = append(kept, g)
		}
	}
	if len(kept) == len(groups) {
		return nil
	}
	return s.write(tenant, namespace, kept)
}

// write replaces the namespace file atomically: a temporary file in the
// same directory, synced, renamed over it. No groups removes the file.
func (s *Store) write(tenant, namespace string, groups []Group) error {
	p, err := s.path(tenant, namespace)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if len(groups) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		s.changed(tenant)
		return atomicfile.SyncDir(dir)
	}
	body, err := MarshalFile(groups)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(p, body); err != nil {
		return err
	}
	s.changed(tenant)
	return nil
}
