package embedded

import (
	"flag"
	"fmt"

	"github.com/VictoriaMetrics/VictoriaMetrics/lib/memory"
)

// AllowedMemory sets VictoriaMetrics' -memory.allowedPercent and
// -memory.allowedBytes (bytes > 0 wins) and returns the bytes they allow:
// the machine's memory, or its cgroup limit, times the percent. The
// embedded engine sizes its caches as fractions of that figure. Call it
// before Start: VictoriaMetrics computes the figure once per process.
// logLevel is VictoriaMetrics' logger level, which already governs the
// line the computation logs.
func AllowedMemory(percent float64, bytes int64, logLevel string) (int64, error) {
	if err := parseGlobalFlags(); err != nil {
		return 0, err
	}
	values := map[string]string{
		"memory.allowedPercent": fmt.Sprint(percent),
		"memory.allowedBytes":   fmt.Sprint(bytes),
		"loggerLevel":           logLevel,
	}
	for name, v := range values {
		if err := flag.Set(name, v); err != nil {
			return 0, fmt.Errorf("embedded VictoriaLogs: setting -%s=%q: %w", name, v, err)
		}
	}
	return int64(memory.Allowed()), nil
}
