package logql

import (
	"time"

	"github.com/prometheus/common/model"
)

func modelDuration(d time.Duration) string { return model.Duration(d).String() }

// parseRangeDuration reads `[5m]` contents as Prometheus does.
func parseRangeDuration(s string) (time.Duration, error) {
	d, err := model.ParseDuration(s)
	return time.Duration(d), err
}

// parseLokiDuration reads a duration token: Prometheus' form first, then
// Go's (which also takes fractions and negative values).
func parseLokiDuration(s string) (time.Duration, error) {
	if d, err := model.ParseDuration(s); err == nil {
		return time.Duration(d), nil
	}
	return time.ParseDuration(s)
}
