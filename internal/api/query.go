package api

import (
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/engine"
	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
)

func (s *Server) queryRange(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q, err := loghttp.ParseRangeQuery(r, start)
	var expr logql.Expr
	if err == nil {
		expr, err = s.parseQuery(q.Query, q.Limit)
	}
	if err == nil {
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), q.End.UnixMilli(), s.d.MaxQueryLength)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	flags := loghttp.EncodingFlags(r.Header)
	if res, ok := s.runRange(w, r, q, expr, flags); ok {
		s.writeResult(w, res, flags, time.Since(start))
	}
}

// runRange runs a parsed range query, answering the client on errors.
func (s *Server) runRange(w http.ResponseWriter, r *http.Request, q *loghttp.RangeQuery, expr logql.Expr, flags loghttp.Flags) (*engine.Result, bool) {
	res, err := s.d.Engine.Range(r.Context(), tenantFrom(r.Context()), engine.RangeRequest{
		Expr: expr, Text: q.Query, Start: q.Start, End: q.End, Step: q.Step, Interval: q.Interval,
		Limit: int(q.Limit), Direction: direction(q.Direction), Categorize: flags.Categorize(),
		QueryTags: r.Header.Get("X-Query-Tags"),
	})
	if err != nil {
		writeError(w, err)
		return nil, false
	}
	return res, true
}

func (s *Server) queryInstant(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q, err := loghttp.ParseInstantQuery(r, start)
	if err != nil {
		writeError(w, err)
		return
	}
	expr, err := s.parseQuery(q.Query, q.Limit)
	if err != nil {
		// Loki refuses a log query as an instant query before it builds
		// its stages, whose errors (templates, ip()) come later.
		if lenient, lerr := logql.ParseForFormat(q.Query); lerr == nil {
			if _, ok := lenient.(logql.LogSelectorExpr); ok {
				expr, err = lenient, nil
			}
		}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	flags := loghttp.EncodingFlags(r.Header)
	res, err := s.d.Engine.Instant(r.Context(), tenantFrom(r.Context()), engine.InstantRequest{
		Expr: expr, Time: q.Time, Limit: int(q.Limit), Direction: direction(q.Direction),
	})
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeResult(w, res, flags, time.Since(start))
}

// parseQuery parses the LogQL once for the whole request, then applies the
// entries limit, in Loki's order.
func (s *Server) parseQuery(query string, limit uint32) (logql.Expr, error) {
	expr, err := logql.ParseExpr(query)
	if err != nil {
		return nil, err
	}
	if err := loghttp.CheckEntriesLimit(limit, s.d.MaxEntriesLimitPerQuery); err != nil {
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
		_, _ = w.Write(lokijson.AppendStreams(nil, res.Streams.Streams, flags, streamsStats(res.Streams, took)))
		return
	}
	_, _ = w.Write(appendMetric(nil, res.Metric, lokijson.Stats{ExecTime: took.Seconds()}))
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
