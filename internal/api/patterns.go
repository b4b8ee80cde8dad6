package api

import (
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
)

// patterns serves /loki/api/v1/patterns (querier.Patterns). Off, a valid
// request gets no patterns, as with Loki's default.
func (s *Server) patterns(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	q, err := loghttp.ParseRangeQuery(r, now)
	if err != nil {
		writeError(w, err)
		return
	}
	if _, err := logql.ParseMatchers(q.Query, true); err != nil {
		writeError(w, err)
		return
	}
	series, err := s.d.Querier.Patterns(r.Context(), tenantFrom(r.Context()), q, now)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(lokijson.AppendPatterns(nil, series))
}
