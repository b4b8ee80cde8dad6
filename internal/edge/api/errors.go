package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/frontend"
	"github.com/vloki/vloki/internal/read/queue"
	"github.com/vloki/vloki/internal/write/push"
)

// writeError answers like Loki's serverutil.WriteError: plain text with the
// status code the error calls for. Tenant errors come from Loki's auth
// middleware instead, which uses http.Error and so ends with a newline.
func writeError(w http.ResponseWriter, err error) {
	if n, ok := w.(frontend.ErrorNoter); ok {
		n.NoteError(err)
	}
	msg := err.Error()
	var te *tenant.Error
	if errors.As(err, &te) {
		msg += "\n"
	}
	writeText(w, statusOf(err), msg)
}

func statusOf(err error) int {
	var (
		te  *tenant.Error
		pe  *push.Error
		he  *loghttp.Error
		ee  *engine.Error
		qe  *logql.ParseError
		ke  *logql.QueryKindError
		ue  *logql.UnsupportedError
		le  *engine.LimitError
		ple *engine.PipelineError
		bu  *engine.StorageUnavailableError
		bt  *engine.StorageTimeoutError
	)
	switch {
	case errors.Is(err, queue.ErrTooManyOutstanding):
		return http.StatusTooManyRequests
	case errors.As(err, &bu):
		// Agents and Grafana retry a 503 with backoff.
		return http.StatusServiceUnavailable
	case errors.As(err, &bt):
		return http.StatusGatewayTimeout
	case errors.As(err, &te):
		return te.Status
	case errors.As(err, &pe):
		return pe.Status
	case errors.As(err, &he):
		return http.StatusBadRequest
	case errors.As(err, &ee):
		return ee.Status
	case errors.As(err, &qe), errors.As(err, &ke):
		return http.StatusBadRequest
	case errors.As(err, &ue):
		return http.StatusNotImplemented
	case errors.As(err, &le):
		return le.Status()
	case errors.As(err, &ple):
		return ple.Status()
	case errors.Is(err, context.Canceled):
		return engine.StatusClientClosedRequest
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

func writeText(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg))
}
