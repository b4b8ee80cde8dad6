package api

import (
	"context"
	"net/http"

	"github.com/vloki/vloki/internal/edge/lokijson"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/frontend"
)

// patterns serves /loki/api/v1/patterns (querier.Patterns). Off, a valid
// request gets no patterns, as with Loki's default.
func (s *Server) patterns(w http.ResponseWriter, ctx context.Context, t tenant.ID, q patternsRequest, st frontend.ReadState) {
	series, err := s.d.Querier.Patterns(ctx, t, q.RangeQuery, q.Selector, q.Now, st)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	frontend.WriteWhole(w, lokijson.AppendPatterns(nil, series))
}
