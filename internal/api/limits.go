package api

import (
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/limits"
)

// limitsOf is the limits of the request's tenant.
func (s *Server) limitsOf(r *http.Request) limits.Limits {
	return s.d.Limits.For(tenantFrom(r.Context()))
}

// maxQueryLength is the tenant's max_query_length (0: unlimited).
func (s *Server) maxQueryLength(r *http.Request) time.Duration {
	return time.Duration(s.limitsOf(r).MaxQueryLength)
}
