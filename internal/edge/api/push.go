package api

import (
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/write/push"
)

// push serves /loki/api/v1/push and /api/prom/push: 204 only once
// VictoriaLogs has accepted every row.
func (s *Server) push(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeText(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	r, t, ok := s.resolveTenant(w, r)
	if !ok {
		return
	}
	req, err := push.Decode(r, s.d.MaxPushBodyBytes)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := s.d.Ingester.Write(r.Context(), t, req, time.Now()); err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
