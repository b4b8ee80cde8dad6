package querier

import (
	"context"
	"slices"
	"time"

	"github.com/vloki/vloki/internal/acked/patterns"
	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/frontend"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/write/push"
)

// PatternsEnabled reports whether patterns are mined (Loki's pattern
// ingester on).
func (q *Querier) PatternsEnabled() bool { return q.patterns.Enabled }

// Patterns answers as Loki does with its pattern ingester on: the
// selector's lines of the retained window clustered per stream and level,
// counts in [start, end) at the step, rare patterns pruned. Off, it finds
// no patterns, as Loki's default.
// st is what the frontend read for the request: the lines' frozen spans
// are kept under it, so a later request reads only what is newer.
func (q *Querier) Patterns(ctx context.Context, t tenant.ID, req *loghttp.RangeQuery, sel logql.LogSelectorExpr, now time.Time, st frontend.ReadState) ([]patterns.Series, error) {
	if !q.patterns.Enabled {
		return nil, nil
	}
	return q.minePatterns(ctx, t, req, sel, now, st)
}

// minePatterns clusters the retained window's lines: those mined as
// pushes came when they cover it, else the newest MaxLines stored ones.
func (q *Querier) minePatterns(ctx context.Context, t tenant.ID, req *loghttp.RangeQuery, sel logql.LogSelectorExpr, now time.Time, st frontend.ReadState) ([]patterns.Series, error) {
	oldest := now.Add(-patterns.Retain)
	if !req.End.After(oldest) {
		return nil, nil
	}
	from, through := req.Start.UnixMilli(), loghttp.CeilMs(req.End) // Loki rounds out to whole ms
	series, ok, err := q.livePatterns(ctx, t, sel, oldest, from, through, req.Step)
	if err == nil {
		q.metrics.ObservePatternAnswer(ok)
	}
	if ok || err != nil {
		return series, err
	}
	select {
	case q.mining <- struct{}{}:
		defer func() { <-q.mining }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	res, err := q.frontend.Range(ctx, t, frontend.RangeRequest{
		Expr: sel, Text: sel.String(), State: st, Start: oldest, End: latest(now, req.End).Add(time.Nanosecond),
		Limit: q.patterns.MaxLines, Direction: logs.Backward, Categorize: true,
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
	return patterns.Prune(m.Series(nil, from, through, req.Step.Milliseconds())), nil
}

// livePatterns answers from the patterns mined as pushes came, when this
// process acknowledged every row since the retained window began.
func (q *Querier) livePatterns(ctx context.Context, t tenant.ID, sel logql.LogSelectorExpr, oldest time.Time, from, through int64, step time.Duration) ([]patterns.Series, bool, error) {
	live := q.patterns.Live
	if live == nil || q.streams == nil {
		return nil, false, nil
	}
	if ok, err := q.streams.Covers(ctx, t, oldest.UnixNano()); !ok || err != nil {
		return nil, false, err
	}
	ms := sel.Matchers()
	series, ok := live.Series(t, func(ls lokidata.Labels) bool { return logql.MatchLabels(ms, ls.Get) }, from, through, step.Milliseconds())
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
