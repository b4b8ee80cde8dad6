package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/lokijson"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/frontend"
)

// Loki's legacy API (/api/prom/query, /label, /label/{name}/values,
// /series, /tail) runs the same operations as /loki/api/v1 and answers
// in the legacy shapes (lokijson's Legacy encoders).

// legacyQuery serves /api/prom/query: a range query over log lines only.
func (s *Server) legacyQuery(w http.ResponseWriter, ctx context.Context, t tenant.ID, q *loghttp.RangeQuery, st frontend.ReadState) {
	start := time.Now()
	res, ok := s.runRange(w, ctx, t, q, st)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	frontend.WriteWhole(w, lokijson.AppendLegacyStreams(nil, res.Streams.Streams, streamsStats(res.Streams, time.Since(start))))
}

// withLegacyRegexp appends the legacy regexp parameter to a log query as a
// last `|~` stage and prints the query in Loki's form, as Loki's
// parseRegexQuery does. Loki refuses a metric query there before it
// validates the query's matchers.
func withLegacyRegexp(query, re string) (string, error) {
	if re == "" {
		return query, nil
	}
	sel, err := logql.ParseLogSelector(query, false)
	if err == nil {
		_, err = logql.ParseExpr(query)
	}
	if err != nil {
		return "", legacyRPCError(err.Error())
	}
	return sel.String() + " |~ " + strconv.Quote(re), nil
}

// legacyRPCError is a 400 as Loki words the ones its legacy parsing
// raises: wrapped as a gRPC status error twice (once where it is raised,
// once by the frontend's codec), so the text carries the status prefix.
func legacyRPCError(msg string) error {
	return &loghttp.Error{Msg: "rpc error: code = Code(400) desc = " + msg}
}

// legacyLabels serves /api/prom/label and /api/prom/label/{name}/values.
// Both answer label names: Loki's querier finds the name of a values
// request only in a /loki/api/v1 path, so a legacy one asks for names.
func (s *Server) legacyLabels(w http.ResponseWriter, ctx context.Context, t tenant.ID, q *loghttp.LabelQuery, _ frontend.ReadState) {
	s.serveValues(w, ctx, t, q, lokijson.AppendLegacyLabels)
}

// legacyTail serves /api/prom/tail: the tail, each message in the legacy
// shape.
func (s *Server) legacyTail(w http.ResponseWriter, r *http.Request, t tenant.ID) {
	s.serveTail(w, r, t, func(streams []lokidata.Stream) []byte { return lokijson.AppendLegacyTail(nil, streams) })
}
