package engine

import (
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/storage/backend"
)

// The engine's requests and answers are the executors' (logs: a direction,
// a log query's streams; metric: a metric query's samples), named here so
// the API reads them without importing them.
type (
	Direction    = logs.Direction
	LogResult    = logs.Result
	MetricResult = metric.Result
)

// Directions and metric result kinds.
const (
	Forward  = logs.Forward
	Backward = logs.Backward
	Scalar   = metric.Scalar
	Vector   = metric.Vector
	Matrix   = metric.Matrix
)

// The errors a read can end with from the layers below the engine, named
// here so the API maps them to Loki's statuses without importing those
// layers.
type (
	// StorageUnavailableError: VictoriaLogs could not be reached.
	StorageUnavailableError = backend.UnavailableError
	// StorageTimeoutError: VictoriaLogs did not answer in time.
	StorageTimeoutError = backend.TimeoutError
	// LimitError: a query went over one of Loki's limits.
	LimitError = metric.LimitError
	// PipelineError: a metric sample kept a pipeline error.
	PipelineError = metric.PipelineError
)
