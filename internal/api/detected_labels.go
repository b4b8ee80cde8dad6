package api

import (
	"encoding/json"
	"net/http"
)

// detectedLabels serves Drilldown's label list (querier.DetectedLabels).
func (s *Server) detectedLabels(w http.ResponseWriter, r *http.Request) {
	q, ok := s.labelQuery(w, r)
	if !ok {
		return
	}
	out, err := s.d.Querier.DetectedLabels(r.Context(), tenantFrom(r.Context()), q)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"detectedLabels": out})
}
