package api

import (
	"net/http"
	"sort"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/foreign"
	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
	"github.com/vloki/vloki/internal/plan"
	"github.com/vloki/vloki/internal/streamindex"
)

// labels serves /labels: the stream label names in the range.
func (s *Server) labels(w http.ResponseWriter, r *http.Request) {
	s.serveValues(w, r, backend.StreamFieldNames, "", lokijson.AppendLabels)
}

// labelValues serves /label/{name}/values.
func (s *Server) labelValues(w http.ResponseWriter, r *http.Request) {
	s.serveValues(w, r, backend.StreamFieldValues, r.PathValue("name"), lokijson.AppendLabels)
}

// serveValues answers a labels-shaped request with the label names
// (field "") or one label's values, sorted, written by encode.
func (s *Server) serveValues(w http.ResponseWriter, r *http.Request, endpoint, field string, encode func([]byte, []string) []byte) {
	q, ok := s.labelQuery(w, r)
	if !ok {
		return
	}
	vals, err := s.values(r, q, endpoint, field)
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
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), q.End.UnixMilli(), s.maxQueryLength(r))
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

// values are the label names or a label's values in q, sorted.
func (s *Server) values(r *http.Request, q *loghttp.LabelQuery, endpoint, field string) ([]string, error) {
	f, err := s.foreign(r.Context(), q.Start, q.End)
	if err != nil {
		return nil, err
	}
	filter, err := selectorFilter(q.Query, f)
	if err != nil {
		return nil, err
	}
	if f != nil {
		return s.foreignValues(r, q, filter, f, field)
	}
	if vals, ok := s.valuesFromMemory(r, q, field); ok {
		return vals, nil
	}
	vals, err := s.d.Backend.Values(r.Context(), tenantFrom(r.Context()), endpoint, backend.MetadataRequest{
		Query: filter, Start: q.Start.UnixNano(), End: q.End.UnixNano(), Field: field,
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		if !internalField(v.Value) {
			out = append(out, v.Value)
		}
	}
	sort.Strings(out)
	return out, nil
}

// valuesFromMemory answers from the stream index when it knows the
// answer exactly; a failed read of the tenant's horizon leaves the
// request to VictoriaLogs.
func (s *Server) valuesFromMemory(r *http.Request, q *loghttp.LabelQuery, field string) ([]string, bool) {
	if s.d.Streams == nil || internalField(field) {
		return nil, false
	}
	var ms []*logql.Matcher
	if q.Query != "" {
		var err error
		if ms, err = logql.ParseMatchers(q.Query, true); err != nil {
			return nil, false
		}
	}
	vals, ok, err := s.d.Streams.Answer(r.Context(), tenantFrom(r.Context()), streamindex.Request{
		Matchers: ms, Start: q.Start.UnixNano(), End: q.End.UnixNano(), Name: field,
	})
	ok = ok && err == nil
	s.d.Metrics.ObserveLabelAnswer(ok)
	return vals, ok
}

// internalField hides VictoriaLogs' own fields from label names.
func internalField(name string) bool {
	return name == "_stream" || name == "_stream_id" || name == "_time" || name == "_msg"
}

// selectorFilter turns an optional stream selector into LogsQL.
func selectorFilter(query string, f *foreign.Config) (string, error) {
	if query == "" {
		return "*", nil
	}
	ms, err := logql.ParseMatchers(query, true)
	if err != nil {
		return "", err
	}
	return plan.SelectorQuery(ms, f), nil
}

// series serves /series: the label sets of streams matching any selector.
func (s *Server) series(w http.ResponseWriter, r *http.Request) {
	q, err := loghttp.ParseSeriesQuery(r, time.Now())
	if err != nil {
		writeError(w, err)
		return
	}
	fc, err := s.foreign(r.Context(), q.Start, q.End)
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
	if err := loghttp.CheckQueryLength(q.Start.UnixMilli(), q.End.UnixMilli(), s.maxQueryLength(r)); err != nil {
		writeError(w, err)
		return
	}
	if err := loghttp.CheckRangeOrder(q.Start, q.End); err != nil {
		writeError(w, err)
		return
	}
	filters := []string{"*"}
	if len(q.Matchers) > 0 {
		filters = filters[:0]
		for _, m := range q.Matchers {
			f, err := selectorFilter(m, fc)
			if err != nil {
				writeError(w, err)
				return
			}
			filters = append(filters, f)
		}
	}
	seen := map[string]bool{}
	var sets []string
	for _, f := range filters {
		vals, err := s.d.Backend.Values(r.Context(), tenantFrom(r.Context()), backend.Streams, backend.MetadataRequest{
			Query: f, Start: q.Start.UnixNano(), End: q.End.UnixNano(),
		})
		if err != nil {
			writeError(w, err)
			return
		}
		for _, v := range vals {
			if !seen[v.Value] {
				seen[v.Value] = true
				sets = append(sets, v.Value)
			}
		}
	}
	s.writeSeries(w, sets, fc)
}
