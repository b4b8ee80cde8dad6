package api

import (
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/limits"
)

// limitsOf is the tenant's limits.
func (s *Server) limitsOf(t backend.Tenant) limits.Limits {
	return s.d.Limits.For(t)
}

// maxQueryLength is the tenant's max_query_length (0: unlimited).
func (s *Server) maxQueryLength(t backend.Tenant) time.Duration {
	return time.Duration(s.limitsOf(t).MaxQueryLength)
}
