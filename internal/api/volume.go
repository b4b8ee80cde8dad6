package api

import (
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
)

// volume serves /index/volume and /index/volume_range: bytes of log lines
// per label group, in Loki's Prometheus-style answer.
func (s *Server) volume(isRange bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, err := loghttp.ParseVolumeQuery(r, time.Now(), isRange)
		if err != nil {
			writeError(w, err)
			return
		}
		ms, err := logql.ParseMatchers(q.Query, true)
		if err == nil {
			// Loki's volume requests count whole seconds.
			err = loghttp.CheckQueryLength(q.Start.Unix()*1000, q.End.Unix()*1000, s.d.MaxQueryLength)
		}
		if err != nil {
			writeError(w, err)
			return
		}
		vols, err := s.d.Querier.Volume(r.Context(), tenantFrom(r.Context()), q, ms)
		if err != nil {
			writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		if vols.Matrix {
			_, _ = w.Write(lokijson.AppendMatrix(nil, vols.Series, lokijson.Stats{}))
			return
		}
		_, _ = w.Write(lokijson.AppendVector(nil, vols.Series, lokijson.Stats{}))
	}
}
