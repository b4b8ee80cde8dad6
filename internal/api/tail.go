package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"github.com/vloki/vloki/internal/exec"
	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/plan"
)

// Loki's tail timings: a ping every second, at most an hour per tail
// (tail_max_duration); vloki sends what arrived every flushEvery.
const (
	tailPingEvery   = time.Second
	tailMaxDuration = time.Hour
	tailFlushEvery  = 250 * time.Millisecond
)

// tailUpgrader accepts any origin, as Loki's does.
var tailUpgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// tail serves /tail over a WebSocket: the newest limit entries since
// start, oldest first, then the entries VictoriaLogs receives, as JSON
// text frames.
func (s *Server) tail(w http.ResponseWriter, r *http.Request) {
	lq, q, ok := s.tailRequest(w, r)
	if !ok {
		return
	}
	conn, err := tailUpgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered the client
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), tailMaxDuration)
	defer cancel()
	go func() {
		// The client only ever closes; a read error ends the tail.
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				cancel()
				return
			}
		}
	}()
	flags := loghttp.EncodingFlags(r.Header)
	now := time.Now()
	live := exec.NewTail(lq, flags.Categorize(), now.UnixNano())
	liveErr := make(chan error, 1)
	go func() { liveErr <- live.Run(ctx, s.d.Backend, tenantFrom(r.Context()), q.DelayFor) }()
	hist, err := exec.RunLogs(ctx, s.d.Backend, tenantFrom(r.Context()), exec.LogRequest{
		Query: lq, Start: q.Start.UnixNano(), End: now.UnixNano(), Limit: int(q.Limit), Direction: exec.Backward, Categorize: flags.Categorize(),
	})
	if err != nil {
		closeTail(conn, err)
		return
	}
	if !sendTail(conn, exec.TailEntries(hist.Streams), flags) {
		return
	}
	s.streamTail(ctx, conn, live, liveErr, flags)
}

// tailRequest parses and plans a tail, answering the client on errors.
func (s *Server) tailRequest(w http.ResponseWriter, r *http.Request) (*plan.LogQuery, *loghttp.TailQuery, bool) {
	if err := r.ParseForm(); err != nil {
		writeError(w, &loghttp.Error{Msg: err.Error()})
		return nil, nil, false
	}
	sel, err := logql.ParseLogSelector(r.Form.Get("query"), true)
	if err != nil {
		writeError(w, err)
		return nil, nil, false
	}
	q, err := loghttp.ParseTailQuery(r, time.Now())
	if err == nil {
		err = loghttp.CheckEntriesLimit(q.Limit, s.d.MaxEntriesLimitPerQuery)
	}
	if err == nil {
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), time.Now().UnixMilli(), s.d.MaxQueryLength)
	}
	if err != nil {
		writeError(w, err)
		return nil, nil, false
	}
	f, err := s.foreign(r.Context(), q.Start, time.Now())
	if err != nil {
		writeError(w, err)
		return nil, nil, false
	}
	lq, err := plan.CompileLog(sel, f)
	if err != nil {
		writeError(w, err)
		return nil, nil, false
	}
	return lq, q, true
}

// streamTail sends what the live tail collects, and pings, until the
// client leaves, the tail fails or its time is up.
func (s *Server) streamTail(ctx context.Context, conn *websocket.Conn, live *exec.Tail, liveErr <-chan error, flags loghttp.Flags) {
	flush, ping := time.NewTicker(tailFlushEvery), time.NewTicker(tailPingEvery)
	defer flush.Stop()
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			return
		case err := <-liveErr:
			if err == nil {
				err = ctx.Err()
			}
			if err != nil {
				closeTail(conn, err)
			}
			return
		case <-flush.C:
			if !sendTail(conn, live.Take(), flags) {
				return
			}
		case <-ping.C:
			if err := conn.WriteMessage(websocket.PingMessage, nil); err != nil {
				return
			}
		}
	}
}

// tailMessageEntries is Loki's maxEntriesPerTailResponse.
const tailMessageEntries = 100

// sendTail writes the entries (one stream object each), at most 100 a
// message; false when the connection failed.
func sendTail(conn *websocket.Conn, entries []model.Stream, flags loghttp.Flags) bool {
	for len(entries) > 0 {
		n := min(len(entries), tailMessageEntries)
		if err := conn.WriteMessage(websocket.TextMessage, lokijson.AppendTail(nil, entries[:n], flags)); err != nil {
			closeTail(conn, err)
			return false
		}
		entries = entries[n:]
	}
	return true
}

// closeTail ends a tail with Loki's close code for errors.
func closeTail(conn *websocket.Conn, err error) {
	_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseInternalServerErr, err.Error()))
}
