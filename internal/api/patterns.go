package api

import (
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
)

// patterns answers as Loki does with its default configuration, where the
// pattern ingester is off: a valid request gets no patterns.
func (s *Server) patterns(w http.ResponseWriter, r *http.Request) {
	q, err := loghttp.ParseRangeQuery(r, time.Now())
	if err != nil {
		writeError(w, err)
		return
	}
	if _, err := logql.ParseMatchers(q.Query, true); err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write([]byte(`{"status":"success","data":[]}` + "\n"))
}
