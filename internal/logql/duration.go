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
