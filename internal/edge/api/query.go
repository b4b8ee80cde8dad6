package api

import (
	"context"
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/lokijson"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/frontend"
)

func (s *Server) queryRange(w http.ResponseWriter, ctx context.Context, t tenant.ID, q *loghttp.RangeQuery, st frontend.ReadState) {
	start := time.Now()
	if res, ok := s.runRange(w, ctx, t, q, st); ok {
		s.writeResult(w, res, q.Headers.Flags, time.Since(start))
	}
}

// runRange runs a decoded range query, answering the client on errors.
func (s *Server) runRange(w http.ResponseWriter, ctx context.Context, t tenant.ID, q *loghttp.RangeQuery, st frontend.ReadState) (*engine.Result, bool) {
	res, err := s.d.Frontend.Range(ctx, t, frontend.RangeRequest{
		Expr: q.Expr, Text: q.Query, Start: q.Start, End: q.End, Step: q.Step, Interval: q.Interval,
		Limit: int(q.Limit), Direction: direction(q.Direction), Categorize: q.Headers.Flags.Categorize(),
		Unbuilt: q.Unbuilt, QueryTags: q.Headers.QueryTags, ReadsAhead: q.Identity.Uncacheable, State: st,
	})
	if err != nil {
		writeError(w, err)
		return nil, false
	}
	return res, true
}

func (s *Server) queryInstant(w http.ResponseWriter, ctx context.Context, t tenant.ID, q *loghttp.InstantQuery, _ frontend.ReadState) {
	start := time.Now()
	res, err := s.d.Frontend.Instant(ctx, t, frontend.InstantRequest{
		Expr: q.Expr, Time: q.Time, Limit: int(q.Limit), Direction: direction(q.Direction),
	})
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeResult(w, res, q.Headers.Flags, time.Since(start))
}

// parseQuery parses the LogQL once for the whole request, then applies the
// entries limit, in Loki's order.
func (s *Server) parseQuery(t tenant.ID, query string, limit uint32) (logql.Expr, error) {
	expr, err := logql.ParseExpr(query)
	if err != nil {
		return nil, err
	}
	if err := loghttp.CheckEntriesLimit(limit, s.limitsOf(t).MaxEntriesLimitPerQuery); err != nil {
		return nil, err
	}
	return expr, nil
}

func direction(d loghttp.Direction) engine.Direction {
	if d == loghttp.Forward {
		return engine.Forward
	}
	return engine.Backward
}

func (s *Server) writeResult(w http.ResponseWriter, res *engine.Result, flags loghttp.Flags, took time.Duration) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if res.Streams != nil {
		frontend.WriteWhole(w, lokijson.AppendStreams(nil, res.Streams.Streams, flags, streamsStats(res.Streams, took)))
		return
	}
	frontend.WriteWhole(w, appendMetric(nil, res.Metric, lokijson.Stats{ExecTime: took.Seconds()}))
}

// streamsStats are the figures a log query's stats report.
func streamsStats(res *engine.LogResult, took time.Duration) lokijson.Stats {
	return lokijson.Stats{ExecTime: took.Seconds(), EntriesReturned: res.Stats.EntriesReturned,
		LinesProcessed: res.Stats.LinesProcessed, BytesProcessed: res.Stats.BytesProcessed}
}

func appendMetric(b []byte, m *engine.MetricResult, st lokijson.Stats) []byte {
	switch m.Kind {
	case engine.Scalar:
		return lokijson.AppendScalar(b, m.Scalar, st)
	case engine.Vector:
		return lokijson.AppendVector(b, m.Series, st)
	}
	return lokijson.AppendMatrix(b, m.Series, st)
}
