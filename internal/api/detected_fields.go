package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
)

// detectedFields serves Drilldown's field list (querier.DetectedFields).
func (s *Server) detectedFields(w http.ResponseWriter, r *http.Request) {
	q, sel, ok := s.detectedFieldsQuery(w, r)
	if !ok {
		return
	}
	out, err := s.d.Querier.DetectedFields(r.Context(), tenantFrom(r.Context()), q, sel)
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
func (s *Server) detectedFieldValues(w http.ResponseWriter, r *http.Request) {
	q, sel, ok := s.detectedFieldsQuery(w, r)
	if !ok {
		return
	}
	out, err := s.d.Querier.DetectedFieldValues(r.Context(), tenantFrom(r.Context()), q, sel, r.PathValue("name"))
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

// detectedFieldsQuery reads a detected_fields-shaped request and its
// selector, answering the client on errors.
func (s *Server) detectedFieldsQuery(w http.ResponseWriter, r *http.Request) (*loghttp.DetectedFieldsQuery, logql.LogSelectorExpr, bool) {
	q, err := loghttp.ParseDetectedFieldsQuery(r, time.Now())
	if err != nil {
		writeError(w, err)
		return nil, nil, false
	}
	sel, err := logql.ParseLogSelector(q.Query, true)
	if err != nil {
		writeError(w, err)
		return nil, nil, false
	}
	return q, sel, true
}

func writeJSON(w http.ResponseWriter, body any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(body)
}
