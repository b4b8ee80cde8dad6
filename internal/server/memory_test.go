package server

import (
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"testing"

	"github.com/vloki/vloki/internal/config"
)

// TestLimitMemorySetsGOGC: the embedded engine's default, an external
// VictoriaLogs' Go default, a configured figure over both, and GOGC in
// the environment over all.
func TestLimitMemorySetsGOGC(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Setenv("GOGC", "")
	}
	prev := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	defer debug.SetGCPercent(prev)
	defer debug.SetMemoryLimit(limit)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		configured int
		embedded   bool
		env        string
		want       int
	}{
		{0, true, "", config.EmbeddedGCPercent},
		{0, false, "", 100},
		{80, true, "", 80},
		{80, false, "", 80},
		{80, true, "120", 33}, // the environment's: left as it was set before
	} {
		debug.SetGCPercent(33)
		t.Setenv("GOGC", c.env)
		if err := LimitMemory(config.Memory{AllowedPercent: 25, GCPercent: c.configured}, c.embedded, log); err != nil {
			t.Fatal(err)
		}
		if got := debug.SetGCPercent(33); got != c.want {
			t.Errorf("configured %d, embedded %v, GOGC %q: GOGC %d, want %d", c.configured, c.embedded, c.env, got, c.want)
		}
	}
}
