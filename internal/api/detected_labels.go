package api

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"

	"github.com/google/uuid"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/frontend"
)

// staticLabels are kept whatever their values, as Loki keeps them.
var staticLabels = map[string]bool{"cluster": true, "namespace": true, "instance": true, "pod": true}

type detectedLabel struct {
	Label       string `json:"label"`
	Cardinality int    `json:"cardinality"`
}

// detectedLabels serves Drilldown's label list: every label of the
// matching streams with its number of values, less labels whose values
// all look like IDs (numbers or UUIDs), as Loki's querier filters them.
func (s *Server) detectedLabels(w http.ResponseWriter, ctx context.Context, t backend.Tenant, q labelRequest, _ frontend.ReadState) {
	f, err := s.foreign(ctx, q.Start, q.End)
	if err != nil {
		writeError(w, err)
		return
	}
	streams, err := s.d.Backend.Values(ctx, t, backend.Streams, backend.MetadataRequest{
		Query: selectorFilter(q.Matchers, f), Start: q.Start.UnixNano(), End: q.End.UnixNano(),
	})
	if err != nil {
		writeError(w, err)
		return
	}
	values := map[string]map[string]bool{}
	for _, st := range streams {
		ls, err := backend.ParseStream(st.Value)
		if err != nil {
			writeError(w, err)
			return
		}
		if f != nil {
			ls = f.StreamLabels(ls)
		}
		for _, l := range ls {
			if values[l.Name] == nil {
				values[l.Name] = map[string]bool{}
			}
			values[l.Name][l.Value] = true
		}
	}
	out := []detectedLabel{}
	for name, vs := range values {
		if staticLabels[name] || !allIDs(vs) || isBoolPair(vs) {
			out = append(out, detectedLabel{Label: name, Cardinality: len(vs)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"detectedLabels": out})
}

// isBoolPair reports at most two values, all 0 or 1: flags, not IDs.
func isBoolPair(vs map[string]bool) bool {
	if len(vs) > 2 {
		return false
	}
	for v := range vs {
		if v != "0" && v != "1" {
			return false
		}
	}
	return true
}

// allIDs reports values that are all numbers or UUIDs.
func allIDs(vs map[string]bool) bool {
	for v := range vs {
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			continue
		}
		if _, err := uuid.Parse(v); err != nil {
			return false
		}
	}
	return true
}
