package api

import (
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
)

// labels serves /labels: the stream label names in the range.
func (s *Server) labels(w http.ResponseWriter, r *http.Request) {
	s.serveLabelNames(w, r, lokijson.AppendLabels)
}

// serveLabelNames answers a request for label names, written by encode.
func (s *Server) serveLabelNames(w http.ResponseWriter, r *http.Request, encode func([]byte, []string) []byte) {
	q, ok := s.labelQuery(w, r)
	if !ok {
		return
	}
	names, err := s.d.Querier.Labels(r.Context(), tenantFrom(r.Context()), q)
	writeLabels(w, names, err, encode)
}

// labelValues serves /label/{name}/values.
func (s *Server) labelValues(w http.ResponseWriter, r *http.Request) {
	q, ok := s.labelQuery(w, r)
	if !ok {
		return
	}
	vals, err := s.d.Querier.LabelValues(r.Context(), tenantFrom(r.Context()), q, r.PathValue("name"))
	writeLabels(w, vals, err, lokijson.AppendLabels)
}

// writeLabels answers with the names or values, or the error.
func writeLabels(w http.ResponseWriter, vals []string, err error, encode func([]byte, []string) []byte) {
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(encode(nil, vals))
}

// labelQuery reads a labels-shaped request and applies max_query_length,
// answering the client on errors. The range it returns covers the whole
// UTC days of the one asked, as Loki's index answers (LabelIndexSpan).
func (s *Server) labelQuery(w http.ResponseWriter, r *http.Request) (*loghttp.LabelQuery, bool) {
	q, err := loghttp.ParseLabelQuery(r, time.Now())
	if err == nil {
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), q.End.UnixMilli(), s.d.MaxQueryLength)
	}
	if err == nil {
		err = loghttp.CheckRangeOrder(q.Start, q.End)
	}
	if err != nil {
		writeError(w, err)
		return nil, false
	}
	q.Start, q.End = loghttp.LabelIndexSpan(q.Start, q.End)
	return q, true
}

// series serves /series: the label sets of streams matching any selector.
func (s *Server) series(w http.ResponseWriter, r *http.Request) {
	q, err := loghttp.ParseSeriesQuery(r, time.Now())
	if err != nil {
		writeError(w, err)
		return
	}
	for _, m := range q.Matchers {
		// Loki checks every group's kind before validating any.
		if _, err := logql.ParseMatchers(m, false); err != nil {
			writeError(w, err)
			return
		}
	}
	if err := loghttp.CheckQueryLength(q.Start.UnixMilli(), q.End.UnixMilli(), s.d.MaxQueryLength); err != nil {
		writeError(w, err)
		return
	}
	if err := loghttp.CheckRangeOrder(q.Start, q.End); err != nil {
		writeError(w, err)
		return
	}
	sets, err := s.d.Querier.Series(r.Context(), tenantFrom(r.Context()), q)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(lokijson.AppendSeries(nil, sets))
}
