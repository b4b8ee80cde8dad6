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
// letting the heap double past it. A GOMEMLIMIT given in the environment
// wins over the soft limit.
func LimitMemory(m config.Memory, log *slog.Logger) error {
	allowed, err := embedded.AllowedMemory(m.AllowedPercent, m.AllowedBytes, "WARN")
	if err != nil {
		return err
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		log.Info("memory", "allowed_bytes", allowed, "go_memory_limit", "GOMEMLIMIT")
		return nil
	}
	debug.SetMemoryLimit(allowed)
	log.Info("memory", "allowed_bytes", allowed, "go_memory_limit", allowed)
	return nil
}
