// Package push decodes, validates and enriches Loki push requests with
// Loki v3.7.8's rules and error texts.
//
// One deliberate difference: Loki accepts the valid streams of a request and
// rejects the invalid ones with a 400; vloki writes nothing when it answers
// 400, so a client retrying the whole request never duplicates entries.
package push

import (
	"fmt"
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/model"
)

// Stream is one decoded stream: sorted labels and its entries.
type Stream struct {
	Labels  model.Labels
	Entries []model.Entry
}

// Request is a decoded push.
type Request struct {
	Streams []Stream
}

// Error is a push failure with the status Loki answers.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

func badRequest(format string, args ...any) error {
	return &Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf(format, args...)}
}

// Limits are Loki's per-tenant ingestion limits.
type Limits struct {
	MaxLineSize                  int
	MaxLabelNameLength           int
	MaxLabelValueLength          int
	MaxLabelNamesPerSeries       int
	RejectOldSamples             bool
	RejectOldSamplesMaxAge       time.Duration
	CreationGracePeriod          time.Duration
	MaxStructuredMetadataSize    int
	MaxStructuredMetadataEntries int
	DiscoverServiceName          []string
	DiscoverLogLevels            bool
	LogLevelFields               []string
	LogLevelFromJSONMaxDepth     int
}

// DefaultLimits are Loki v3.7.8's defaults (pkg/validation/limits.go),
// except that old samples are accepted: vloki serves historical data.
func DefaultLimits() Limits {
	return Limits{
		MaxLineSize:                  256 * 1024,
		MaxLabelNameLength:           1024,
		MaxLabelValueLength:          2048,
		MaxLabelNamesPerSeries:       15,
		RejectOldSamples:             false,
		RejectOldSamplesMaxAge:       7 * 24 * time.Hour,
		CreationGracePeriod:          10 * time.Minute,
		MaxStructuredMetadataSize:    64 * 1024,
		MaxStructuredMetadataEntries: 128,
		DiscoverServiceName: []string{"service", "app", "application", "app_name", "name", "app_kubernetes_io_name",
			"container", "container_name", "k8s_container_name", "component", "workload", "job", "k8s_job_name"},
		DiscoverLogLevels: true,
		LogLevelFields: []string{"level", "LEVEL", "Level", "log.level", "severity", "SEVERITY", "Severity", "SeverityText",
			"lvl", "LVL", "Lvl", "severity_text", "Severity_Text", "SEVERITY_TEXT"},
		LogLevelFromJSONMaxDepth: 2,
	}
}
