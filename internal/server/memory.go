package server

import (
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/storage/backend/embedded"
)

// LimitMemory applies memory.allowed_percent / memory.allowed_bytes: the
// embedded VictoriaLogs sizes its caches from the figure, and Go's soft
// memory limit is set to it, so the collector works harder as the
// process (the embedded engine shares its heap) nears it instead of
// letting the heap double past it. It then sets the collector's GOGC
// (memory.gc_percent; embeddedEngine picks the default). A GOMEMLIMIT or
// GOGC given in the environment wins.
func LimitMemory(m config.Memory, embeddedEngine bool, log *slog.Logger) error {
	allowed, err := embedded.AllowedMemory(m.AllowedPercent, m.AllowedBytes, "WARN")
	if err != nil {
		return err
	}
	var limit, gogc any = "GOMEMLIMIT", "GOGC"
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(allowed)
		limit = allowed
	}
	if os.Getenv("GOGC") == "" {
		p := GCPercent(m.GCPercent, embeddedEngine)
		debug.SetGCPercent(p)
		gogc = p
	}
	log.Info("memory", "allowed_bytes", allowed, "go_memory_limit", limit, "gogc", gogc)
	return nil
}

// GCPercent is the configured GOGC, or the backend's default.
func GCPercent(configured int, embeddedEngine bool) int {
	switch {
	case configured > 0:
		return configured
	case embeddedEngine:
		return config.EmbeddedGCPercent
	}
	return 100
}
