package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/frontend"
)

// detectedLabels serves Drilldown's label list (querier.DetectedLabels).
func (s *Server) detectedLabels(w http.ResponseWriter, ctx context.Context, t tenant.ID, q *loghttp.LabelQuery, _ frontend.ReadState) {
	out, err := s.d.Querier.DetectedLabels(ctx, t, q)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"detectedLabels": out})
}
