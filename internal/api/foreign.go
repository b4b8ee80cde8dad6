package api

import (
	"context"
	"sort"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/foreign"
	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/model"
)

// foreign returns how to read data other agents wrote in [start, end],
// nil when vloki reads only its own rows.
func (s *Server) foreign(ctx context.Context, start, end time.Time) (*foreign.Config, error) {
	if s.d.Engine == nil {
		return nil, nil
	}
	return s.d.Engine.Foreign(ctx, tenantFrom(ctx), start.UnixNano(), end.UnixNano())
}

// foreignValues answers /labels (field "") and /label/{field}/values
// from the matching streams' labels as Loki names them, derived ones
// included.
func (s *Server) foreignValues(ctx context.Context, q *loghttp.LabelQuery, filter string, f *foreign.Config, field string) ([]string, error) {
	sets, err := s.foreignStreams(ctx, filter, q.Start, q.End, f)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []string{}
	for _, ls := range sets {
		for _, l := range ls {
			v := l.Name
			if field != "" {
				if l.Name != field {
					continue
				}
				v = l.Value
			}
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// foreignStreams lists the label sets of the streams a LogsQL filter
// selects, as Loki names them.
func (s *Server) foreignStreams(ctx context.Context, filter string, start, end time.Time, f *foreign.Config) ([]model.Labels, error) {
	vals, err := s.d.Backend.Values(ctx, tenantFrom(ctx), backend.Streams, backend.MetadataRequest{
		Query: filter, Start: start.UnixNano(), End: end.UnixNano(),
	})
	if err != nil {
		return nil, err
	}
	sets := make([]model.Labels, 0, len(vals))
	for _, v := range vals {
		ls, err := backend.ParseStream(v.Value)
		if err != nil {
			return nil, err
		}
		sets = append(sets, f.StreamLabels(ls))
	}
	return sets, nil
}
