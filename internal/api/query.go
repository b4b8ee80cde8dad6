package api

import (
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/engine"
	"github.com/vloki/vloki/internal/exec"
	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
)

func (s *Server) queryRange(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q, err := loghttp.ParseRangeQuery(r, start)
	if err != nil {
		writeError(w, err)
		return
	}
	expr, err := s.parseQuery(q.Query, q.Limit)
	if err == nil {
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), q.End.UnixMilli(), s.d.MaxQueryLength)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	flags := loghttp.EncodingFlags(r.Header)
	res, err := s.d.Engine.Range(r.Context(), tenantFrom(r.Context()), engine.RangeRequest{
		Expr: expr, Text: q.Query, Start: q.Start, End: q.End, Step: q.Step, Interval: q.Interval,
		Limit: int(q.Limit), Direction: direction(q.Direction), Categorize: flags.Categorize(),
		QueryTags: r.Header.Get("X-Query-Tags"),
	})
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeResult(w, res, flags, time.Since(start))
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

func direction(d loghttp.Direction) exec.Direction {
	if d == loghttp.Forward {
		return exec.Forward
	}
	return exec.Backward
}

func (s *Server) writeResult(w http.ResponseWriter, res *engine.Result, flags loghttp.Flags, took time.Duration) {
	st := lokijson.Stats{ExecTime: took.Seconds()}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if res.Streams != nil {
		st.EntriesReturned = res.Streams.Stats.EntriesReturned
		st.LinesProcessed = res.Streams.Stats.LinesProcessed
		st.BytesProcessed = res.Streams.Stats.BytesProcessed
		_, _ = w.Write(lokijson.AppendStreams(nil, res.Streams.Streams, flags, st))
		return
	}
	_, _ = w.Write(appendMetric(nil, res.Metric, st))
}

func appendMetric(b []byte, m *exec.MetricResult, st lokijson.Stats) []byte {
	switch m.Kind {
	case exec.Scalar:
		return lokijson.AppendScalar(b, m.Scalar, st)
	case exec.Vector:
		return lokijson.AppendVector(b, m.Series, st)
	}
	return lokijson.AppendMatrix(b, m.Series, st)
}
