package config

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
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
	if cfg.Server.HTTPListenPort != 5100 || cfg.Backend.URL != "http://vl:9428" || cfg.Limits.QueryTimeout != 2*time.Minute {
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
