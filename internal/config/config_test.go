package config

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

func TestFlagsOverrideFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	yml := "server:\n  http_listen_port: 4100\nbackend:\n  url: http://vl:9428\nlimits:\n  query_timeout: 2m\n"
	if err := os.WriteFile(p, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]string{"-config.file", p, "-server.http-listen-port", "5100"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.HTTPListenPort != 5100 || cfg.Backend.URL != "http://vl:9428" || cfg.Limits.QueryTimeout != model.Duration(2*time.Minute) {
		t.Fatalf("got %+v", cfg)
	}
	if cfg.Limits.MaxEntriesLimitPerQuery != 5000 {
		t.Fatalf("default lost: %+v", cfg.Limits)
	}
}

func TestUnknownFileKeyRejected(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte("nope: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load([]string{"-config.file", p}, io.Discard); err == nil {
		t.Fatal("want error for unknown key")
	}
}

func TestDefaults(t *testing.T) {
	cfg, err := Load(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ListenAddr() != ":3100" || cfg.Backend.URL != "" || cfg.Storage.Path != "./data" {
		t.Fatalf("got %+v", cfg)
	}
}

func TestMemorySettings(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	yml := "memory:\n  allowed_percent: 40\nlimits:\n  max_query_buffered_bytes: 1024\n"
	if err := os.WriteFile(p, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]string{"-config.file", p, "-memory.allowed-bytes", "1000000"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Memory.AllowedPercent != 40 || cfg.Memory.AllowedBytes != 1000000 || cfg.Limits.MaxQueryBufferedBytes != 1024 {
		t.Fatalf("got %+v %+v", cfg.Memory, cfg.Limits)
	}
	if _, err := Load([]string{"-memory.allowed-percent", "0"}, io.Discard); err == nil {
		t.Fatal("want error for memory.allowed_percent 0")
	}
}

// TestLimitsInLokiNotation: the limits block takes Loki's durations and
// byte sizes, from the file and from flags; runtime_config is Loki's.
func TestLimitsInLokiNotation(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	yml := "limits:\n  max_query_length: 30d\n  max_query_bytes_read: 10GB\n  max_line_size: 1024\n" +
		"runtime_config:\n  file: /etc/vloki/runtime.yaml\n  period: 5s\n"
	if err := os.WriteFile(p, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]string{"-config.file", p, "-limits.max-structured-metadata-size", "1MB"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Limits
	if l.MaxQueryLength != model.Duration(30*24*time.Hour) || l.MaxQueryBytesRead != 10<<30 || l.MaxLineSize != 1024 || l.MaxStructuredMetadataSize != 1<<20 {
		t.Errorf("limits %+v", l.Limits)
	}
	if cfg.RuntimeConfig.File != "/etc/vloki/runtime.yaml" || cfg.RuntimeConfig.Period != 5*time.Second {
		t.Errorf("runtime_config %+v", cfg.RuntimeConfig)
	}
	if _, err := Load([]string{"-limits.max-entries-limit-per-query", "0"}, io.Discard); err == nil || err.Error() != "limits.max_entries_limit_per_query must be > 0" {
		t.Errorf("invalid limit: %v", err)
	}
}

// Loki's ingester settings read as Loki writes them: -1 (no unit) for the
// look-back, in YAML and as a flag; 0 is Loki's derived 2h41m; a positive
// look-back below it is refused with Loki's text.
func TestIngesterSettings(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	yml := "ingester:\n  chunk_idle_period: 6m\n  flush_check_period: 10s\n  query_store_max_look_back_period: -1\n"
	if err := os.WriteFile(p, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]string{"-config.file", p}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if i := cfg.Ingester; i.ChunkIdlePeriod != 6*time.Minute || i.FlushCheckPeriod != 10*time.Second || i.LookBack() >= 0 {
		t.Fatalf("YAML: %+v, look-back %v", i, i.LookBack())
	}
	cfg, err = Load([]string{"-ingester.query-store-max-look-back-period", "-1"}, io.Discard)
	if err != nil || cfg.Ingester.LookBack() >= 0 {
		t.Fatalf("flag -1: %v %v", cfg.Ingester.LookBack(), err)
	}
	if d := Default().Ingester; d.LookBack() != 2*time.Hour+41*time.Minute || d.ChunkIdlePeriod != 30*time.Minute {
		t.Fatalf("defaults: %+v, look-back %v", d, d.LookBack())
	}
	if _, err := Load([]string{"-ingester.query-store-max-look-back-period", "1h"}, io.Discard); err == nil {
		t.Fatal("a look-back below Loki's derived one was accepted")
	}
}
