package limits

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/vloki/vloki/internal/edge/tenant"
)

// tenantOf maps names as the tenant resolver does for numeric names.
func tenantOf(name string) tenant.ID {
	switch name {
	case "fake", "0":
		return tenant.ID{}
	case "tenant-a":
		return tenant.ID{AccountID: 1}
	case "tenant-b":
		return tenant.ID{AccountID: 2}
	}
	return tenant.ID{AccountID: 99, ProjectID: uint32(len(name))}
}

// TestParseLokiFormat: Loki's own example, each block over the defaults,
// durations and byte sizes in Loki's notations.
func TestParseLokiFormat(t *testing.T) {
	file := `
overrides:
  "tenant-a":
    max_query_length: 12h
    max_entries_limit_per_query: 100
    ingestion_rate_mb: 8
  tenant-b:
    query_timeout: 1d
    max_line_size: 1KB
    max_query_bytes_read: 2gb
    max_structured_metadata_size: 1024
    discover_service_name: []
    reject_old_samples_max_age: 1w2d
`
	defaults := Default()
	rc, err := ParseRuntimeConfig([]byte(file), defaults, tenantOf)
	if err != nil {
		t.Fatal(err)
	}
	a, b := rc.Tenants[tenantOf("tenant-a")], rc.Tenants[tenantOf("tenant-b")]
	wantA := defaults
	wantA.MaxQueryLength, wantA.MaxEntriesLimitPerQuery, wantA.IngestionRateMB = model.Duration(12*time.Hour), 100, 8
	if !equal(a, wantA) {
		t.Errorf("tenant-a: %+v", a)
	}
	if b.QueryTimeout != model.Duration(24*time.Hour) || b.MaxLineSize != 1024 || b.MaxQueryBytesRead != 2<<30 ||
		b.MaxStructuredMetadataSize != 1024 || b.DiscoverServiceName == nil || len(b.DiscoverServiceName) != 0 ||
		b.RejectOldSamplesMaxAge != model.Duration(9*24*time.Hour) {
		t.Errorf("tenant-b: %+v", b)
	}
	if b.MaxEntriesLimitPerQuery != defaults.MaxEntriesLimitPerQuery || len(rc.Tenants) != 2 || len(rc.Warnings) != 0 {
		t.Errorf("defaults lost or extra tenants: %+v %v", rc.Tenants, rc.Warnings)
	}
	if len(defaults.DiscoverServiceName) == 0 || len(Default().DiscoverServiceName) != len(defaults.DiscoverServiceName) {
		t.Errorf("a tenant block changed the defaults: %v", defaults.DiscoverServiceName)
	}
}

// TestParseStrict: what Loki's strict loader refuses is refused, with
// the line; Loki's keys vloki does not apply are accepted and reported.
func TestParseStrict(t *testing.T) {
	bad := map[string]string{
		"unknown limit":     "overrides:\n  tenant-a:\n    max_query_lenght: 1h\n",
		"unknown section":   "override:\n  tenant-a:\n    max_query_length: 1h\n",
		"bad duration":      "overrides:\n  tenant-a:\n    max_query_length: 1.5h\n",
		"bad size":          "overrides:\n  tenant-a:\n    max_line_size: 1.5MB\n",
		"wrong type":        "overrides:\n  tenant-a:\n    max_entries_limit_per_query: many\n",
		"duplicate key":     "overrides:\n  tenant-a:\n    max_query_series: 1\n    max_query_series: 2\n",
		"duplicate tenant":  "overrides:\n  tenant-a:\n    max_query_series: 1\n  tenant-a:\n    max_query_series: 2\n",
		"one tenant twice":  "overrides:\n  fake:\n    max_query_series: 1\n  \"0\":\n    max_query_series: 2\n",
		"invalid value":     "overrides:\n  tenant-a:\n    max_entries_limit_per_query: 0\n",
		"block not a map":   "overrides:\n  tenant-a: 5\n",
		"not yaml":          "overrides: [\n",
		"overrides is list": "overrides:\n  - tenant-a\n",
	}
	for name, file := range bad {
		if _, err := ParseRuntimeConfig([]byte(file), Default(), tenantOf); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	_, err := ParseRuntimeConfig([]byte(bad["unknown limit"]), Default(), tenantOf)
	if want := "invalid override for tenant tenant-a: line 3: field max_query_lenght not found"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	lokis := "overrides:\n  tenant-a:\n    max_streams_per_user: 10\n    retention_period: 744h\n    max_query_series: 7\n  tenant-b:\nconfigs:\n  tenant-a: {}\n"
	rc, err := ParseRuntimeConfig([]byte(lokis), Default(), tenantOf)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Tenants[tenantOf("tenant-a")].MaxQuerySeries != 7 || len(rc.Tenants) != 1 {
		t.Errorf("tenants %+v", rc.Tenants)
	}
	want := []string{"skipping empty tenant limit definition for tenant tenant-b",
		"Loki's limits not applied per tenant by vloki: max_streams_per_user, retention_period",
		"configs: Loki's, not applied by vloki"}
	if strings.Join(rc.Warnings, "|") != strings.Join(want, "|") {
		t.Errorf("warnings %q", rc.Warnings)
	}
}

// TestParseEmpty: an empty file, or one without overrides, overrides
// nothing (Loki loads it).
func TestParseEmpty(t *testing.T) {
	for _, file := range []string{"", "\n# nothing yet\n", "overrides:\n", "overrides: {}\n"} {
		rc, err := ParseRuntimeConfig([]byte(file), Default(), tenantOf)
		if err != nil || len(rc.Tenants) != 0 {
			t.Errorf("%q: %v %v", file, rc.Tenants, err)
		}
	}
}

func TestByteSize(t *testing.T) {
	for in, want := range map[string]ByteSize{"0": 0, "1024": 1024, "256KB": 256 << 10, "256kb": 256 << 10, "1Kb": 1024, "": 0, "1k": 1024, "2MB": 2 << 20, "1GB": 1 << 30, "3B": 3} {
		var b ByteSize
		if err := b.Set(in); err != nil || b != want {
			t.Errorf("%s: %d %v, want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"-1", "1.5MB", "KB", "20000000EB"} {
		var b ByteSize
		if err := b.Set(in); err == nil {
			t.Errorf("%s: accepted as %d", in, b)
		}
	}
	for b, want := range map[ByteSize]string{0: "0B", 256 << 10: "256KB", 1536: "1536B", 1 << 30: "1GB"} {
		if b.String() != want {
			t.Errorf("%d: %s, want %s", b, b, want)
		}
	}
}
