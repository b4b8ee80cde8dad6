package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/logsql"
	"github.com/vloki/vloki/internal/plan"
)

// indexStats answers Grafana's query-size hint: the streams, entries and
// line bytes the selector matches in [start, end). VictoriaLogs has no
// chunks; each stream counts as one.
func (s *Server) indexStats(w http.ResponseWriter, r *http.Request) {
	q, err := loghttp.ParseRangeQuery(r, time.Now())
	if err == nil {
		// Loki rounds an index stats request out to whole milliseconds.
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), loghttp.CeilMs(q.End), s.d.MaxQueryLength)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	ms, err := logql.ParseMatchers(q.Query, true)
	if err != nil {
		writeError(w, err)
		return
	}
	f, err := s.foreign(r.Context(), q.Start, q.End)
	if err != nil {
		writeError(w, err)
		return
	}
	query := logsql.Query{
		Filter: logsql.And{logsql.TimeRange{Start: q.Start.UnixNano(), End: q.End.UnixNano() - 1}, plan.StreamFilter(ms, f)},
		Pipes:  []logsql.Pipe{logsql.IndexStats{Lines: backend.LineBytesPipe}},
	}
	var streams, entries, bytes int64
	err = s.d.Backend.Query(r.Context(), tenantFrom(r.Context()), backend.QueryRequest{Query: query.String()}, func(row *backend.Row) error {
		entries, _ = strconv.ParseInt(string(row.Get("c")), 10, 64)
		streams, _ = strconv.ParseInt(string(row.Get("s")), 10, 64)
		var err error
		bytes, err = logsql.ParseLineBytes(row.Get("b"), row.Get("b0"))
		return err
	})
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	b := []byte(`{"streams":`)
	b = strconv.AppendInt(b, streams, 10)
	b = append(b, `,"chunks":`...)
	b = strconv.AppendInt(b, streams, 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, bytes, 10)
	b = append(b, `,"entries":`...)
	b = strconv.AppendInt(b, entries, 10)
	_, _ = w.Write(append(b, "}\n"...))
}
