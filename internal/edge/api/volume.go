package api

import (
	"context"
	"net/http"

	"github.com/vloki/vloki/internal/edge/lokijson"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/frontend"
)

// volume serves /index/volume and /index/volume_range: bytes of log lines
// per label group, in Loki's Prometheus-style answer.
func (s *Server) volume(w http.ResponseWriter, ctx context.Context, t tenant.ID, q volumeRequest, _ frontend.ReadState) {
	vols, err := s.d.Querier.Volume(ctx, t, q.VolumeQuery, q.Matchers)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if vols.Matrix {
		frontend.WriteWhole(w, lokijson.AppendMatrix(nil, vols.Series, lokijson.Stats{}))
		return
	}
	frontend.WriteWhole(w, lokijson.AppendVector(nil, vols.Series, lokijson.Stats{}))
}
