package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
)

// indexStats answers Grafana's query-size hint: the streams, entries and
// line bytes the selector matches in [start, end).
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
	st, err := s.d.Querier.IndexStats(r.Context(), tenantFrom(r.Context()), q, ms)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	b := []byte(`{"streams":`)
	b = strconv.AppendInt(b, st.Streams, 10)
	b = append(b, `,"chunks":`...)
	b = strconv.AppendInt(b, st.Streams, 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, st.Bytes, 10)
	b = append(b, `,"entries":`...)
	b = strconv.AppendInt(b, st.Entries, 10)
	_, _ = w.Write(append(b, "}\n"...))
}
