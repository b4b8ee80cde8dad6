package api

import (
	"context"
	"net/http"
	"sort"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/foreign"
	"github.com/vloki/vloki/internal/frontend"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
	"github.com/vloki/vloki/internal/plan"
	"github.com/vloki/vloki/internal/streamindex"
)

// labels serves /labels and /label/{name}/values: the stream label
// names in the range, or one label's values.
func (s *Server) labels(w http.ResponseWriter, ctx context.Context, t backend.Tenant, q labelRequest, _ frontend.ReadState) {
	s.serveValues(w, ctx, t, q, lokijson.AppendLabels)
}

// serveValues answers a labels-shaped request with the label names
// or one label's values, sorted, written by encode.
func (s *Server) serveValues(w http.ResponseWriter, ctx context.Context, t backend.Tenant, q labelRequest, encode func([]byte, []string) []byte) {
	vals, err := s.values(ctx, t, q)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(encode(nil, vals))
}

// values are the label names or a label's values in q, sorted.
func (s *Server) values(ctx context.Context, t backend.Tenant, q labelRequest) ([]string, error) {
	f, err := s.foreign(ctx, q.Start, q.End)
	if err != nil {
		return nil, err
	}
	filter := selectorFilter(q.Matchers, f)
	if f != nil {
		return s.foreignValues(ctx, q.LabelQuery, filter, f, q.Name)
	}
	if vals, ok := s.valuesFromMemory(ctx, t, q); ok {
		return vals, nil
	}
	endpoint := backend.StreamFieldNames
	if q.Name != "" {
		endpoint = backend.StreamFieldValues
	}
	vals, err := s.d.Backend.Values(ctx, t, endpoint, backend.MetadataRequest{
		Query: filter, Start: q.Start.UnixNano(), End: q.End.UnixNano(), Field: q.Name,
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
func (s *Server) valuesFromMemory(ctx context.Context, t backend.Tenant, q labelRequest) ([]string, bool) {
	if s.d.Streams == nil || internalField(q.Name) {
		return nil, false
	}
	vals, ok, err := s.d.Streams.Answer(ctx, t, streamindex.Request{
		Matchers: q.Matchers, Start: q.Start.UnixNano(), End: q.End.UnixNano(), Name: q.Name,
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
func selectorFilter(ms []*logql.Matcher, f *foreign.Config) string {
	if len(ms) == 0 {
		return "*"
	}
	return plan.SelectorQuery(ms, f)
}

// series serves /series: the label sets of streams matching any selector.
func (s *Server) series(w http.ResponseWriter, ctx context.Context, t backend.Tenant, q seriesRequest, _ frontend.ReadState) {
	fc, err := s.foreign(ctx, q.Start, q.End)
	if err != nil {
		writeError(w, err)
		return
	}
	filters := []string{"*"}
	if len(q.Selectors) > 0 {
		filters = filters[:0]
		for _, ms := range q.Selectors {
			filters = append(filters, selectorFilter(ms, fc))
		}
	}
	seen := map[string]bool{}
	var sets []string
	for _, f := range filters {
		vals, err := s.d.Backend.Values(ctx, t, backend.Streams, backend.MetadataRequest{
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
