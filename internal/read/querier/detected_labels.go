package querier

import (
	"context"
	"sort"
	"strconv"

	"github.com/google/uuid"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/schema"
)

// staticLabels are kept whatever their values, as Loki keeps them.
var staticLabels = map[string]bool{"cluster": true, "namespace": true, "instance": true, "pod": true}

// DetectedLabel is one label of Drilldown's label list, in Loki's JSON
// form.
type DetectedLabel struct {
	Label       string `json:"label"`
	Cardinality int    `json:"cardinality"`
}

// DetectedLabels is Drilldown's label list: every label of the matching
// streams with its number of values, less labels whose values all look
// like IDs (numbers or UUIDs), as Loki's querier filters them; sorted by
// name, never nil.
func (q *Querier) DetectedLabels(ctx context.Context, t tenant.ID, req *loghttp.LabelQuery) ([]DetectedLabel, error) {
	return bounded(ctx, q.engine, t, func(ctx context.Context) ([]DetectedLabel, error) {
		values, err := q.streamLabelValues(ctx, t, req)
		if err != nil {
			return nil, err
		}
		out := []DetectedLabel{}
		for name, vs := range values {
			if staticLabels[name] || !allIDs(vs) || isBoolPair(vs) {
				out = append(out, DetectedLabel{Label: name, Cardinality: len(vs)})
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
		return out, nil
	})
}

// streamLabelValues are the values of every label of the streams the
// request selects, as Loki names them.
func (q *Querier) streamLabelValues(ctx context.Context, t tenant.ID, req *loghttp.LabelQuery) (map[string]map[string]bool, error) {
	f, err := q.foreign(ctx, t, req.Start, req.End)
	if err != nil {
		return nil, err
	}
	values := map[string]map[string]bool{}
	add := func(ls lokidata.Labels) {
		for _, l := range ls {
			if values[l.Name] == nil {
				values[l.Name] = map[string]bool{}
			}
			values[l.Name][l.Value] = true
		}
	}
	if f == nil && q.streams != nil {
		if streams, ok, err := q.streams.Detected(ctx, t, askedRange(req)); ok && err == nil {
			for _, ls := range streams {
				add(ls)
			}
			return values, nil
		}
	}
	streams, err := q.storage.Values(ctx, t, backend.Streams, backend.MetadataRequest{
		Query: selectorFilter(req.Matchers, f), Start: req.Start.UnixNano(), End: req.End.UnixNano(),
	})
	if err != nil {
		return nil, err
	}
	for _, st := range streams {
		ls, err := schema.ParseStream(st.Value)
		if err != nil {
			return nil, err
		}
		if f != nil {
			ls = f.StreamLabels(ls)
		}
		add(ls)
	}
	return values, nil
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
