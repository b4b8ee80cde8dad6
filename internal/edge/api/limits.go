package api

import (
	"time"

	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/edge/tenant"
)

// limitsOf is the tenant's limits.
func (s *Server) limitsOf(t tenant.ID) limits.Limits {
	return s.d.Limits.For(t)
}

// maxQueryLength is the tenant's max_query_length (0: unlimited).
func (s *Server) maxQueryLength(t tenant.ID) time.Duration {
	return time.Duration(s.limitsOf(t).MaxQueryLength)
}
