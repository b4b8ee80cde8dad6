package api

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/exec"
	"github.com/vloki/vloki/internal/frontend"
	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/patterns"
	"github.com/vloki/vloki/internal/push"
)

// Patterns configures the patterns endpoint.
type Patterns struct {
	Enabled  bool
	MaxLines int
	// Live mines pushes as they are acknowledged (vloki the sole writer);
	// it answers when it saw every row of the retained window.
	Live *patterns.Live[backend.Tenant]
}

// patterns answers as Loki does with its pattern ingester on: the
// selector's lines of the retained window clustered per stream and level,
// counts in [start, end) at the step, rare patterns pruned. Off, a valid
// request gets no patterns, as with Loki's default.
func (s *Server) patterns(w http.ResponseWriter, ctx context.Context, t backend.Tenant, q patternsRequest, _ frontend.ReadState) {
	var series []patterns.Series
	if s.d.Patterns.Enabled {
		var err error
		if series, err = s.minePatterns(ctx, t, q); err != nil {
			writeError(w, err)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(lokijson.AppendPatterns(nil, series))
}

func (s *Server) minePatterns(ctx context.Context, t backend.Tenant, q patternsRequest) ([]patterns.Series, error) {
	now, sel := q.Now, q.Selector
	oldest := now.Add(-patterns.Retain)
	if !q.End.After(oldest) {
		return nil, nil
	}
	from, through := q.Start.UnixMilli(), loghttp.CeilMs(q.End) // Loki rounds out to whole ms
	series, ok, err := s.livePatterns(ctx, t, sel, oldest, from, through, q.Step)
	if err == nil {
		s.d.Metrics.ObservePatternAnswer(ok)
	}
	if ok || err != nil {
		return series, err
	}
	res, err := s.d.Frontend.Range(ctx, t, frontend.RangeRequest{
		Expr: sel, Start: oldest, End: latest(now, q.End).Add(time.Nanosecond),
		Limit: s.d.Patterns.MaxLines, Direction: exec.Backward, Categorize: true,
		Metadata: []string{push.DetectedLevelLabel}, ShowDeleted: true,
	})
	if err != nil {
		return nil, err
	}
	m := patterns.NewMiner()
	for _, st := range res.Streams.Streams {
		m.Add(st.Labels, func(yield func(patterns.Line) bool) {
			for _, e := range slices.Backward(st.Entries) {
				level, _ := e.StructuredMetadata.Get(push.DetectedLevelLabel)
				if !yield(patterns.Line{TsNano: e.TimestampNs, Text: e.Line, Level: level}) {
					return
				}
			}
		})
	}
	return patterns.Prune(m.Series(nil, from, through, q.Step.Milliseconds())), nil
}

// livePatterns answers from the patterns mined as pushes came, when this
// process acknowledged every row since the retained window began.
func (s *Server) livePatterns(ctx context.Context, t backend.Tenant, sel logql.LogSelectorExpr, oldest time.Time, from, through int64, step time.Duration) ([]patterns.Series, bool, error) {
	live := s.d.Patterns.Live
	if live == nil || s.d.Streams == nil {
		return nil, false, nil
	}
	if ok, err := s.d.Streams.Covers(ctx, t, oldest.UnixNano()); !ok || err != nil {
		return nil, false, err
	}
	ms := sel.Matchers()
	series, ok := live.Series(t, func(ls model.Labels) bool { return logql.MatchLabels(ms, ls.Get) }, from, through, step.Milliseconds())
	if !ok {
		return nil, false, nil
	}
	return patterns.Prune(series), true, nil
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
