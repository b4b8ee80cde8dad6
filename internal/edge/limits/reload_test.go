package limits

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/vloki/vloki/internal/edge/tenant"
)

func equal(a, b Limits) bool { return reflect.DeepEqual(a, b) }

// TestOverridesSet: For answers a tenant's override, else the defaults;
// Set reports the tenants whose limits changed, added and removed ones
// included, not those set to what they had.
func TestOverridesSet(t *testing.T) {
	defaults := Default()
	o := NewOverrides(defaults)
	a, b, c := tenant.ID{AccountID: 1}, tenant.ID{AccountID: 2}, tenant.ID{AccountID: 3}
	la := defaults
	la.MaxQuerySeries = 1
	if changed := o.Set(map[tenant.ID]Limits{a: la, c: defaults}); !sameTenants(changed, a) {
		t.Errorf("first set changed %v", changed)
	}
	if o.For(a).MaxQuerySeries != 1 || !equal(o.For(b), defaults) {
		t.Errorf("a %+v b %+v", o.For(a), o.For(b))
	}
	lb := defaults
	lb.QueryTimeout = 1
	if changed := o.Set(map[tenant.ID]Limits{b: lb}); !sameTenants(changed, a, b) {
		t.Errorf("second set changed %v", changed)
	}
	if !equal(o.For(a), defaults) || o.For(b).QueryTimeout != 1 {
		t.Errorf("a %+v b %+v", o.For(a), o.For(b))
	}
}

func sameTenants(got []tenant.ID, want ...tenant.ID) bool {
	key := func(t tenant.ID) uint64 { return uint64(t.AccountID)<<32 | uint64(t.ProjectID) }
	g, w := make([]uint64, len(got)), make([]uint64, len(want))
	for i := range got {
		g[i] = key(got[i])
	}
	for i := range want {
		w[i] = key(want[i])
	}
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}

// TestReload: a rewritten file is in force within a period and the
// changed tenants are told; a bad file keeps the last good overrides,
// sets Loki's gauge to 0 and counts the failure; fixed, it loads again.
func TestReload(t *testing.T) {
	file := filepath.Join(t.TempDir(), "runtime.yaml")
	write(t, file, "overrides:\n  tenant-a:\n    max_entries_limit_per_query: 100\n")
	o := NewOverrides(Default())
	reg := prometheus.NewRegistry()
	told := make(chan tenant.ID, 10)
	r, err := StartReloader(ReloadOptions{File: file, Period: 20 * time.Millisecond, Overrides: o, TenantOf: tenantOf,
		Changed: func(t tenant.ID) { told <- t }, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	a := tenantOf("tenant-a")
	if o.For(a).MaxEntriesLimitPerQuery != 100 || <-told != a {
		t.Fatalf("not loaded at start: %+v", o.For(a))
	}
	hash := metricText(t, reg, "loki_runtime_config_hash")

	write(t, file, "overrides:\n  tenant-a:\n    max_entries_limit_per_query: 50\n")
	waitFor(t, func() bool { return o.For(a).MaxEntriesLimitPerQuery == 50 })
	if <-told != a || metricText(t, reg, "loki_runtime_config_hash") == hash {
		t.Error("the change was not told, or the hash stayed")
	}

	write(t, file, "overrides:\n  tenant-a:\n    max_entries_limit_per_query: fifty\n")
	waitFor(t, func() bool { return testutil.ToFloat64(r.failures) >= 2 })
	if o.For(a).MaxEntriesLimitPerQuery != 50 || testutil.ToFloat64(r.success) != 0 {
		t.Errorf("a bad file: limit %d, success %v", o.For(a).MaxEntriesLimitPerQuery, testutil.ToFloat64(r.success))
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	failures := testutil.ToFloat64(r.failures)
	waitFor(t, func() bool { return testutil.ToFloat64(r.failures) > failures })
	if o.For(a).MaxEntriesLimitPerQuery != 50 {
		t.Errorf("a missing file dropped the overrides")
	}

	write(t, file, "overrides: {}\n")
	waitFor(t, func() bool { return o.For(a).MaxEntriesLimitPerQuery == Default().MaxEntriesLimitPerQuery })
	if <-told != a || testutil.ToFloat64(r.success) != 1 {
		t.Error("the fixed file was not taken")
	}
}

// TestReloadBadAtStart: a bad file stops the start, as in Loki.
func TestReloadBadAtStart(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	write(t, bad, "overrides:\n  tenant-a:\n    no_such_limit: 1\n")
	for _, f := range []string{bad, filepath.Join(dir, "missing.yaml")} {
		_, err := StartReloader(ReloadOptions{File: f, Period: time.Second, Overrides: NewOverrides(Default()), TenantOf: tenantOf})
		if err == nil {
			t.Errorf("%s: started", f)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	// Written aside and renamed: the reloader never reads half a file.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not within 5s")
		}
	}
}

func metricText(t *testing.T, reg *prometheus.Registry, name string) string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, mf := range mfs {
		if mf.GetName() == name {
			b.WriteString(mf.String())
		}
	}
	if b.Len() == 0 {
		t.Fatalf("no metric %s", name)
	}
	return b.String()
}
