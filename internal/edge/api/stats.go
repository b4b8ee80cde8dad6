package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/frontend"
)

// indexStats answers Grafana's query-size hint: the streams, entries and
// line bytes the selector matches in [start, end).
func (s *Server) indexStats(w http.ResponseWriter, ctx context.Context, t tenant.ID, q selectorRange, _ frontend.ReadState) {
	st, err := s.d.Querier.IndexStats(ctx, t, q.RangeQuery, q.Matchers)
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
