// Package tenant maps Loki tenants (X-Scope-OrgID) to VictoriaLogs
// AccountID/ProjectID pairs.
//
// Mapping rules, in order:
//  1. a tenant listed in the mapping file gets the pair given there;
//  2. a tenant made only of digits N (N < 2^32) gets (N, 0);
//  3. any other name gets a pair derived from its 64-bit FNV-1a hash, with
//     the top bit of ProjectID set so it never equals a numeric tenant's pair.
//
// With auth disabled every request belongs to Loki's "fake" tenant, which
// maps to (0, 0): VictoriaLogs' default tenant.
package tenant

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Fake is the tenant Loki uses when auth is disabled.
const Fake = "fake"

// Header carries the tenant in Loki's API.
const Header = "X-Scope-OrgID"

const maxTenantIDLength = 150

// Resolver turns request headers into a tenant.
type Resolver struct {
	AuthEnabled bool
	Mapping     map[string]ID
}

// Error is a tenant problem reported to the client.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// ErrNoOrgID is Loki's answer to a request without a tenant when auth is on.
var ErrNoOrgID = &Error{Status: http.StatusUnauthorized, Msg: "no org id"}

// Resolve returns the tenant name and its VictoriaLogs pair.
func (r *Resolver) Resolve(h http.Header) (string, ID, error) {
	name := Fake
	if r.AuthEnabled {
		name = h.Get(Header)
		if name == "" {
			return "", ID{}, ErrNoOrgID
		}
		if err := Validate(name); err != nil {
			return "", ID{}, err
		}
	}
	return name, r.Map(name), nil
}

// Map applies the mapping rules to a valid tenant name.
func (r *Resolver) Map(name string) ID {
	if t, ok := r.Mapping[name]; ok {
		return t
	}
	if name == Fake {
		return ID{}
	}
	if n, err := strconv.ParseUint(name, 10, 32); err == nil {
		return ID{AccountID: uint32(n)}
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	sum := h.Sum64()
	return ID{AccountID: uint32(sum >> 32), ProjectID: uint32(sum) | 1<<31}
}

// Validate applies Loki's tenant ID rules (dskit's ValidTenantID).
func Validate(name string) error {
	if strings.Contains(name, "|") {
		return &Error{Status: http.StatusBadRequest, Msg: "multiple org IDs present"}
	}
	if len(name) > maxTenantIDLength {
		return &Error{Status: http.StatusUnauthorized, Msg: fmt.Sprintf("tenant ID is too long: max %d characters", maxTenantIDLength)}
	}
	if name == "." || name == ".." {
		return &Error{Status: http.StatusUnauthorized, Msg: "tenant ID is '.' or '..'"}
	}
	for _, c := range name {
		if !isSupportedRune(c) {
			return &Error{Status: http.StatusUnauthorized, Msg: fmt.Sprintf("tenant ID '%s' contains unsupported character '%c'", name, c)}
		}
	}
	return nil
}

func isSupportedRune(c rune) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.ContainsRune("!-_.*'()", c)
}

// fileEntry is one tenant in the mapping file.
type fileEntry struct {
	AccountID uint32 `yaml:"account_id"`
	ProjectID uint32 `yaml:"project_id"`
}

// LoadMapping reads a YAML file of the form
//
//	tenants:
//	  team-a: {account_id: 1, project_id: 0}
func LoadMapping(path string) (map[string]ID, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Tenants map[string]fileEntry `yaml:"tenants"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("tenant mapping %s: %w", path, err)
	}
	out := make(map[string]ID, len(f.Tenants))
	for name, e := range f.Tenants {
		out[name] = ID{AccountID: e.AccountID, ProjectID: e.ProjectID}
	}
	return out, nil
}
