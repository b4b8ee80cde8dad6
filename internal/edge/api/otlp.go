package api

import (
	"log/slog"
	"net/http"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/vloki/vloki/internal/write/otlp"
	"github.com/vloki/vloki/internal/write/push"
)

// otlpLogs serves /otlp/v1/logs: OpenTelemetry log exports mapped as
// Loki's default OTLP configuration maps them, 204 only once VictoriaLogs
// has accepted every row.
func (s *Server) otlpLogs(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeText(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	r, t, ok := s.resolveTenant(w, r)
	if !ok {
		return
	}
	logs, err := otlp.Decode(r, s.d.MaxPushBodyBytes)
	if err != nil {
		writeOTLPError(w, err)
		return
	}
	req, err := otlp.ToPush(logs, s.d.Limits.For(t).DiscoverServiceName, s.d.OTLP)
	if err != nil {
		writeOTLPError(w, &push.Error{Status: http.StatusBadRequest, Msg: err.Error()})
		return
	}
	if err := s.d.Ingester.Write(r.Context(), t, req, time.Now()); err != nil {
		writeOTLPError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// writeOTLPError answers as Loki's OTLPError: the status in the header,
// a google.rpc.Status protobuf with the message as the body, and 503 for
// a 500 (OTLP clients retry 503, never 500).
func writeOTLPError(w http.ResponseWriter, err error) {
	code, msg := statusOf(err), err.Error()
	if code == http.StatusInternalServerError {
		code = http.StatusServiceUnavailable
	}
	body, merr := proto.Marshal(status.New(codes.OK, msg).Proto())
	if merr != nil {
		slog.Error("otlp error response", "err", merr)
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
