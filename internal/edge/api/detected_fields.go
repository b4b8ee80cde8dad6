package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/frontend"
)

// detectedFields serves Drilldown's field list (querier.DetectedFields).
func (s *Server) detectedFields(w http.ResponseWriter, ctx context.Context, t tenant.ID, q detectedRequest, st frontend.ReadState) {
	out, err := s.d.Querier.DetectedFields(ctx, t, q.DetectedFieldsQuery, q.Selector, st)
	if err != nil {
		writeError(w, err)
		return
	}
	// Loki leaves out an empty list (and the limit) altogether: {}.
	body := map[string]any{}
	if len(out) > 0 {
		body["fields"], body["limit"] = out, q.Limit
	}
	writeJSON(w, body)
}

// detectedFieldValues serves detected_field/{name}/values: the distinct
// values of one field (querier.DetectedFieldValues).
func (s *Server) detectedFieldValues(w http.ResponseWriter, ctx context.Context, t tenant.ID, q detectedRequest, st frontend.ReadState) {
	out, err := s.d.Querier.DetectedFieldValues(ctx, t, q.DetectedFieldsQuery, q.Selector, q.Name, st)
	if err != nil {
		writeError(w, err)
		return
	}
	body := map[string]any{}
	if len(out) > 0 {
		body["values"], body["limit"] = out, q.Limit
	}
	writeJSON(w, body)
}

func writeJSON(w http.ResponseWriter, body any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(body)
}
