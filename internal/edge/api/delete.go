package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/write/deletion"
)

// deleteRequests is /loki/api/v1/delete as Loki's compactor serves it:
// POST or PUT create, GET lists, DELETE cancels; other methods 405.
func (s *Server) deleteRequests(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost, http.MethodPut:
		s.withTenant(s.createDelete)(w, r)
	case http.MethodGet:
		s.withTenant(s.listDeletes)(w, r)
	case http.MethodDelete:
		s.withTenant(s.cancelDelete)(w, r)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// createDelete reads only the URL's parameters, as Loki does.
func (s *Server) createDelete(w http.ResponseWriter, r *http.Request, t tenant.ID) {
	q := r.URL.Query()
	p := deletion.CreateParams{Query: q.Get("query"), Start: q.Get("start"), End: q.Get("end"), MaxInterval: q.Get("max_interval")}
	req, err := s.d.Deletes.Create(r.Context(), t, tenant.NameFrom(r.Context()), p)
	if err != nil {
		writeDeleteError(w, err)
		return
	}
	w.Header().Set("X-Delete-Request-Id", req.ID)
	w.WriteHeader(http.StatusNoContent)
}

// listDeletes filters by overlap only when both bounds are given; a bad
// bound is reported and the list still follows, as in Loki.
func (s *Server) listDeletes(w http.ResponseWriter, r *http.Request, t tenant.ID) {
	q := r.URL.Query()
	var msgs string
	start, end := int64(0), int64(0)
	if v := q.Get("start"); v != "" {
		var ok bool
		if start, ok = deletion.ParseListBound(v); !ok {
			msgs += "invalid start time: require unix seconds or RFC3339 format\n"
		}
	}
	if v := q.Get("end"); v != "" {
		var ok bool
		if end, ok = deletion.ParseListBound(v); !ok {
			msgs += "invalid end time: require unix seconds or RFC3339 format\n"
		}
	}
	reqs, err := s.d.Deletes.List(t, start, end, q.Get("start") != "" && q.Get("end") != "")
	if err != nil {
		writeDeleteError(w, err)
		return
	}
	body := deletion.Listed(nil, reqs)
	if msgs != "" {
		writeText(w, http.StatusBadRequest, msgs+string(body))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (s *Server) cancelDelete(w http.ResponseWriter, r *http.Request, t tenant.ID) {
	q := r.URL.Query()
	err := s.d.Deletes.Cancel(t, q.Get("request_id"), q.Get("force") == "true")
	if err != nil {
		writeDeleteError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// generationNumbers is /loki/api/v1/cache/generation_numbers: the
// tenant's cache generation as a JSON string.
func (s *Server) generationNumbers(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	s.withTenant(func(w http.ResponseWriter, r *http.Request, t tenant.ID) {
		gen, err := s.d.Deletes.Generation(t)
		if err != nil {
			writeDeleteError(w, err)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(strconv.Quote(gen) + "\n"))
	})(w, r)
}

// writeDeleteError answers as Loki's compactor: http.Error texts.
func writeDeleteError(w http.ResponseWriter, err error) {
	var br *deletion.BadRequest
	var inexact *deletion.Inexact
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, deletion.ErrDisabled):
		status = http.StatusForbidden
	case errors.Is(err, deletion.ErrNotFound):
		status = http.StatusNotFound
	case errors.As(err, &br), errors.As(err, &inexact):
		status = http.StatusBadRequest
	case errors.Is(err, deletion.ErrNoDeletes):
		// Not Loki's: the storage cannot delete, so no request is taken
		// that would never be processed (filter-only mode can).
		writeText(w, http.StatusNotImplemented, err.Error()+"; or set -deletion.mode=filter-only to hide lines without deleting them\n")
		return
	default:
		status = statusOf(err)
	}
	writeText(w, status, err.Error()+"\n")
}
