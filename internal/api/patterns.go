package api

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/vloki/vloki/internal/engine"
	"github.com/vloki/vloki/internal/exec"
	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
	"github.com/vloki/vloki/internal/patterns"
	"github.com/vloki/vloki/internal/push"
)

// patternsRetain is Loki's pattern_ingester retain_for: its pattern
// ingester holds, and its querier asks it for, the last three hours.
const patternsRetain = 3 * time.Hour

// Patterns configures the patterns endpoint.
type Patterns struct {
	Enabled  bool
	MaxLines int
}

// patterns answers as Loki does with its pattern ingester on: the
// selector's lines of the retained window clustered per stream and level,
// counts in [start, end) at the step, rare patterns pruned. Off, a valid
// request gets no patterns, as with Loki's default.
func (s *Server) patterns(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	q, err := loghttp.ParseRangeQuery(r, now)
	if err != nil {
		writeError(w, err)
		return
	}
	if _, err := logql.ParseMatchers(q.Query, true); err != nil {
		writeError(w, err)
		return
	}
	var series []patterns.Series
	if s.d.Patterns.Enabled {
		if series, err = s.minePatterns(r.Context(), q, now); err != nil {
			writeError(w, err)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(lokijson.AppendPatterns(nil, series))
}

func (s *Server) minePatterns(ctx context.Context, q *loghttp.RangeQuery, now time.Time) ([]patterns.Series, error) {
	oldest := now.Add(-patternsRetain)
	if !q.End.After(oldest) {
		return nil, nil
	}
	sel, err := logql.ParseLogSelector(q.Query, true)
	if err != nil {
		return nil, err
	}
	res, err := s.d.Engine.Range(ctx, tenantFrom(ctx), engine.RangeRequest{
		Expr: sel, Start: oldest, End: latest(now, q.End).Add(time.Nanosecond),
		Limit: s.d.Patterns.MaxLines, Direction: exec.Backward, Categorize: true,
	})
	if err != nil {
		return nil, err
	}
	m := patterns.NewMiner()
	for _, st := range res.Streams.Streams {
		key := st.Labels.String()
		for _, e := range slices.Backward(st.Entries) {
			level, _ := e.StructuredMetadata.Get(push.DetectedLevelLabel)
			m.Add(key, e.TimestampNs, e.Line, level)
		}
	}
	from, through := roundToMilliseconds(q.Start, q.End)
	return patterns.Prune(m.Series(from, through, q.Step.Milliseconds())), nil
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// roundToMilliseconds is Loki's: from truncated, through rounded up.
func roundToMilliseconds(from, through time.Time) (int64, int64) {
	t := through.UnixNano() / 1e6
	if through.UnixNano()%1e6 != 0 {
		t++
	}
	return from.UnixNano() / 1e6, t
}
