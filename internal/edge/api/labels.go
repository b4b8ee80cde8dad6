package api

import (
	"context"
	"net/http"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/lokijson"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/frontend"
)

// labels serves /labels and /label/{name}/values: the stream label names
// in the range, or one label's values.
func (s *Server) labels(w http.ResponseWriter, ctx context.Context, t tenant.ID, q *loghttp.LabelQuery, _ frontend.ReadState) {
	s.serveValues(w, ctx, t, q, lokijson.AppendLabels)
}

// serveValues answers a labels-shaped request with the label names or one
// label's values, written by encode.
func (s *Server) serveValues(w http.ResponseWriter, ctx context.Context, t tenant.ID, q *loghttp.LabelQuery, encode func([]byte, []string) []byte) {
	var vals []string
	var err error
	if q.Name == "" {
		vals, err = s.d.Querier.Labels(ctx, t, q)
	} else {
		vals, err = s.d.Querier.LabelValues(ctx, t, q, q.Name)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	frontend.WriteWhole(w, encode(nil, vals))
}

// series serves /series: the label sets of streams matching any selector.
func (s *Server) series(w http.ResponseWriter, ctx context.Context, t tenant.ID, q *loghttp.SeriesQuery, _ frontend.ReadState) {
	sets, err := s.d.Querier.Series(ctx, t, q)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	frontend.WriteWhole(w, lokijson.AppendSeries(nil, sets))
}
