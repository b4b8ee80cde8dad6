package server

import (
	"context"

	"github.com/vloki/vloki/internal/acked/needles"
	"github.com/vloki/vloki/internal/acked/peers"
	"github.com/vloki/vloki/internal/acked/streamindex"
	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// needleSource narrows substring searches with the needle index over the
// ranges whose every row the stream index says this process wrote.
type needleSource struct {
	needles *needles.Index
	streams *streamindex.Index
}

// newNeedles builds the needle index when it is on, beside the stream
// index and without replicas (pushes another replica wrote do not reach
// it before they are stored).
func newNeedles(c config.Frontend, streams *streamindex.Index, group *peers.Group, m *metrics.Metrics) *needleSource {
	if c.NeedleIndexMaxBytes <= 0 || streams == nil || group != nil {
		return nil
	}
	n := needles.New(needles.Config{MaxBytes: c.NeedleIndexMaxBytes})
	m.RegisterNeedleIndex(n.Bytes)
	return &needleSource{needles: n, streams: streams}
}

func (s *needleSource) writing(_ context.Context, t tenant.ID, streams []lokidata.Stream) {
	s.needles.Writing(t, streams)
}

// Candidates implements logs.Needles.
func (s *needleSource) Candidates(ctx context.Context, t tenant.ID, str string, start, end int64) ([][2]int64, bool, error) {
	if ok, err := s.streams.Covers(ctx, t, start); !ok || err != nil {
		return nil, false, err
	}
	ranges, ok := s.needles.Candidates(t, str, start, end)
	return ranges, ok, nil
}
