package api

import (
	"context"
	"iter"
	"net/http"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/exec"
	"github.com/vloki/vloki/internal/foreign"
	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/plan"
)

// indexStats answers Grafana's query-size hint: the streams, entries and
// line bytes the selector matches in [start, end). VictoriaLogs has no
// chunks; each stream counts as one.
func (s *Server) indexStats(w http.ResponseWriter, r *http.Request) {
	q, err := loghttp.ParseRangeQuery(r, time.Now())
	if err == nil {
		// Loki rounds an index stats request out to whole milliseconds.
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), loghttp.CeilMs(q.End), s.maxQueryLength(r))
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
	st, ok, err := s.indexStatsFromMemory(r.Context(), ms, f, q.Start.UnixNano(), q.End.UnixNano()-1)
	if err == nil {
		s.d.Metrics.ObserveVolumeAnswer(ok)
	}
	if err == nil && !ok {
		st, err = exec.ReadIndexStats(r.Context(), s.d.Backend, tenantFrom(r.Context()), plan.StreamFilter(ms, f), q.Start.UnixNano(), q.End.UnixNano()-1)
	}
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

// indexStatsFromMemory counts from the stream index's line lengths when
// it holds every entry of [start, end] (inclusive Unix ns).
func (s *Server) indexStatsFromMemory(ctx context.Context, ms []*logql.Matcher, f *foreign.Config, start, end int64) (exec.IndexStats, bool, error) {
	var st exec.IndexStats
	if f != nil || s.d.Streams == nil {
		return st, false, nil
	}
	ok, err := s.d.Streams.Lines(ctx, tenantFrom(ctx), ms, start, end, func(_ model.Labels, lines iter.Seq2[int64, int64]) {
		entries := st.Entries
		for _, n := range lines {
			st.Entries++
			st.Bytes += n
		}
		if st.Entries > entries {
			st.Streams++
		}
	})
	return st, ok, err
}
