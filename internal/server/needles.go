package server

import (
	"context"
	"maps"
	"slices"

	"github.com/vloki/vloki/internal/acked/needles"
	"github.com/vloki/vloki/internal/acked/peers"
	"github.com/vloki/vloki/internal/acked/streamindex"
	"github.com/vloki/vloki/internal/config"
	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/plan"
)

// needleSource narrows substring searches with the needle index over the
// ranges whose every row went through it (covers).
type needleSource struct {
	needles *needles.Index
	streams *streamindex.Index
	// since are, per tenant, the times after which every row went through
	// the needle index, in this process and in the ones before it whose
	// clean shutdowns saved it beside the stream index (nil: none did).
	since map[tenant.ID]int64
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
func (s *needleSource) Candidates(ctx context.Context, t tenant.ID, selector []*logql.Matcher, str string, start, end int64) ([]plan.NeedlePart, bool, error) {
	if ok, err := s.covers(ctx, t, start); !ok || err != nil {
		return nil, false, err
	}
	found, ok := s.needles.Candidates(t, str, start, end)
	if !ok {
		return nil, false, nil
	}
	parts := make([]plan.NeedlePart, len(found))
	for i, p := range found {
		parts[i] = plan.NeedlePart{Start: p.Start, End: p.End}
	}
	return parts, true, s.inStreams(ctx, t, selector, found, parts)
}

// inStreams names the streams of each part the needle index gave buckets
// for: the selected streams in those buckets whose entries span part of
// it, per the stream index (which knows every stream of a range the
// needle index covers, unless it was full: then any stream).
func (s *needleSource) inStreams(ctx context.Context, t tenant.ID, selector []*logql.Matcher, found []needles.Part, parts []plan.NeedlePart) error {
	if !slices.ContainsFunc(found, func(p needles.Part) bool { return p.Buckets != needles.AllBuckets }) {
		return nil
	}
	type known struct {
		labels   lokidata.Labels
		min, max int64
		bucket   int
	}
	var streams []known
	ok, err := s.streams.StreamSpans(ctx, t, selector, found[0].Start, found[len(found)-1].End, func(ls lokidata.Labels, lo, hi int64) {
		streams = append(streams, known{ls, lo, hi, needles.BucketOf(ls)})
	})
	if err != nil || !ok {
		return err
	}
	for i, p := range found {
		if p.Buckets == needles.AllBuckets {
			continue
		}
		in := []lokidata.Labels{}
		for _, st := range streams {
			if p.Buckets&(1<<st.bucket) != 0 && st.max >= p.Start && st.min <= p.End {
				in = append(in, st.labels)
			}
		}
		parts[i].Streams = in
	}
	return nil
}

// covers reports whether every row of the tenant from start on went
// through the needle index: pushed through this process (Covers), or
// after the tenant's since, in the processes before it.
func (s *needleSource) covers(ctx context.Context, t tenant.ID, start int64) (bool, error) {
	if after, ok := s.since[t]; ok && start > after {
		return s.streams.KnowsFrom(ctx, t, start)
	}
	return s.streams.Covers(ctx, t, start)
}

// save writes the filters, tagged with the stream index's save, with each
// tenant's since: its own where it came with them, else the newest row
// restored with the stream index (none went through this process's
// filters).
func (s *needleSource) save(path string, generation int64) error {
	since := s.streams.Restored()
	maps.Copy(since, s.since)
	return s.needles.Save(path, generation, since)
}

// load restores the filters a clean shutdown saved with the stream index
// it restored.
func (s *needleSource) load(path string, generation int64) (err error) {
	s.since, err = s.needles.Load(path, generation)
	return err
}
