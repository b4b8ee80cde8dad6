package tenant

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestResolve(t *testing.T) {
	r := &Resolver{AuthEnabled: true, Mapping: map[string]ID{"team-a": {AccountID: 5, ProjectID: 6}}}
	cases := []struct {
		header string
		want   ID
		status int
	}{
		{"team-a", ID{AccountID: 5, ProjectID: 6}, 0},
		{"42", ID{AccountID: 42}, 0},
		{"", ID{}, 401},
		{"a|b", ID{}, 400},
		{"bad/char", ID{}, 401},
	}
	for _, c := range cases {
		h := http.Header{}
		if c.header != "" {
			h.Set(Header, c.header)
		}
		_, got, err := r.Resolve(h)
		if c.status != 0 {
			e, ok := err.(*Error)
			if !ok || e.Status != c.status {
				t.Errorf("%q: err = %v, want status %d", c.header, err, c.status)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.header, got, err, c.want)
		}
	}
}

func TestNamedTenantsNeverCollideWithNumeric(t *testing.T) {
	r := &Resolver{}
	a, b := r.Map("team-x"), r.Map("team-y")
	if a == b {
		t.Fatalf("two names map to one pair %+v", a)
	}
	if a.ProjectID&(1<<31) == 0 {
		t.Fatalf("named tenant %+v lacks the top ProjectID bit", a)
	}
}

func TestAuthDisabledUsesFake(t *testing.T) {
	r := &Resolver{}
	h := http.Header{}
	h.Set(Header, "someone")
	name, pair, err := r.Resolve(h)
	if err != nil || name != Fake || pair != (ID{}) {
		t.Fatalf("got %q %+v %v", name, pair, err)
	}
}

func TestLoadMapping(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(p, []byte("tenants:\n  team-a: {account_id: 3, project_id: 4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadMapping(p)
	if err != nil || m["team-a"] != (ID{AccountID: 3, ProjectID: 4}) {
		t.Fatalf("got %v %v", m, err)
	}
}

// FuzzResolve: any X-Scope-OrgID resolves to a valid tenant or a client
// error; two different accepted names never share a VictoriaLogs tenant
// unless one is numeric and maps by number.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"team-a", "42", "a|b", "..", "", "tenant with space", "0", "4294967296", "ÿ"} {
		f.Add(s, "other")
	}
	r := &Resolver{AuthEnabled: true}
	f.Fuzz(func(t *testing.T, a, b string) {
		na, ta, ea := r.Resolve(http.Header{Header: {a}})
		nb, tb, eb := r.Resolve(http.Header{Header: {b}})
		for _, err := range []error{ea, eb} {
			var te *Error
			if err != nil && (!errors.As(err, &te) || te.Status < 400 || te.Status > 499) {
				t.Fatalf("not a client error: %v", err)
			}
		}
		if ea == nil && eb == nil && na != nb && ta == tb && !numeric(na) && !numeric(nb) {
			t.Fatalf("tenants %q and %q share %v", na, nb, ta)
		}
	})
}

func numeric(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}
