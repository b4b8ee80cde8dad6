package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/exec"
	"github.com/vloki/vloki/internal/loghttp"
	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/lokijson"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/plan"
)

// Loki's tail timings: a ping every second, at most an hour per tail
// (tail_max_duration).
const (
	tailPingEvery   = time.Second
	tailMaxDuration = time.Hour
	// tailBatchWait gathers the entries of concurrent pushes into one
	// message (Loki's tailer sends what it has every half second at
	// most; vloki within this).
	tailBatchWait = 20 * time.Millisecond
)

// tailUpgrader accepts any origin, as Loki's does.
var tailUpgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// tailEncoder writes one tail message.
type tailEncoder func(streams []model.Stream) []byte

// tail serves /tail over a WebSocket: the newest limit entries since
// start, oldest first, then every new matching entry, as JSON text frames.
func (s *Server) tail(w http.ResponseWriter, r *http.Request) {
	flags := loghttp.EncodingFlags(r.Header)
	s.serveTail(w, r, func(streams []model.Stream) []byte { return lokijson.AppendTail(nil, streams, flags) })
}

// serveTail runs a tail, each message written by encode.
func (s *Server) serveTail(w http.ResponseWriter, r *http.Request, encode tailEncoder) {
	lq, q, ok := s.tailRequest(w, r)
	if !ok {
		return
	}
	s.tails.Add(1)
	defer s.tails.Done()
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
	tn := tenantFrom(r.Context())
	live := exec.NewTail(lq, flags.Categorize(), q.Start.UnixNano(), q.DelayFor, s.d.Tails != nil && s.d.TailFromBackend)
	// The live sources start before the history is asked, so nothing
	// pushed in between falls through the gap.
	liveErr := s.startTailSources(ctx, live, tn)
	if s.d.Visibility != nil {
		_ = s.d.Visibility.Wait(ctx, tn) // the history sees every acknowledged push
	}
	now := time.Now()
	// Delete requests hide lines from the history only, as in Loki.
	histQuery := *lq
	histQuery.Hide(s.d.Engine.Hidden(tn))
	hist, err := s.d.Frontend.Logs(ctx, s.d.Engine.Planned(tn, exec.LogRequest{
		Query: &histQuery, Start: q.Start.UnixNano(), End: now.UnixNano(), Limit: int(q.Limit), Direction: exec.Backward,
		Categorize: flags.Categorize(), KeepParsed: true,
	}))
	if err != nil {
		closeTail(conn, err)
		return
	}
	entries := exec.TailEntries(hist.Streams)
	live.SetHistory(entries, len(entries) >= int(q.Limit), now)
	if !sendTail(conn, entries, encode) {
		return
	}
	s.streamTail(ctx, conn, live, liveErr, encode)
}

// startTailSources feeds the tail from this process's acknowledged pushes
// and, when configured, VictoriaLogs' own live tail (rows other agents or
// other replicas wrote). The channel reports the first source to end.
func (s *Server) startTailSources(ctx context.Context, live *exec.Tail, tn backend.Tenant) <-chan error {
	errs := make(chan error, 2)
	if s.d.Tails != nil {
		sub, replay := s.d.Tails.Subscribe(tn)
		go func() { errs <- live.RunPushed(ctx, sub, replay) }()
	}
	if s.d.Tails == nil || s.d.TailFromBackend {
		sub := s.d.BackendTails.Subscribe(tn, live.BackendRequest())
		go func() { errs <- live.RunBackend(ctx, sub) }()
	}
	return errs
}

// tailRequest parses and plans a tail, answering the client on errors.
func (s *Server) tailRequest(w http.ResponseWriter, r *http.Request) (*plan.LogQuery, *loghttp.TailQuery, bool) {
	form, err := loghttp.ReadForm(r)
	if err != nil {
		writeError(w, err)
		return nil, nil, false
	}
	sel, err := logql.ParseLogSelector(form.Query(), true)
	if err != nil {
		writeError(w, err)
		return nil, nil, false
	}
	q, err := loghttp.ParseTailQuery(form, time.Now())
	if err == nil {
		err = loghttp.CheckEntriesLimit(q.Limit, s.limitsOf(tenantFrom(r.Context())).MaxEntriesLimitPerQuery)
	}
	if err == nil {
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), time.Now().UnixMilli(), s.maxQueryLength(tenantFrom(r.Context())))
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

// streamTail sends live entries as they fall due, and pings, until the
// client leaves, a source fails or the tail's time is up.
func (s *Server) streamTail(ctx context.Context, conn *websocket.Conn, live *exec.Tail, liveErr <-chan error, encode tailEncoder) {
	ping := time.NewTicker(tailPingEvery)
	defer ping.Stop()
	due := time.NewTimer(tailMaxDuration)
	defer due.Stop()
	batch := time.NewTimer(tailMaxDuration)
	defer batch.Stop()
	batching := false
	for {
		select {
		case <-ctx.Done():
			_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			return
		case <-s.closing:
			_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "vloki is shutting down"))
			return
		case err := <-liveErr:
			if err == nil {
				err = ctx.Err()
			}
			if err == nil {
				err = errTailSourceEnded
			}
			closeTail(conn, err)
			return
		case <-live.Ready():
			// Entries arriving together leave together: wait a moment
			// for the rest of the push.
			if !batching {
				batching = true
				batch.Reset(tailBatchWait)
			}
			continue
		case <-batch.C:
			batching = false
		case <-due.C:
		case <-ping.C:
			if err := conn.WriteMessage(websocket.PingMessage, nil); err != nil {
				return
			}
			continue
		}
		entries, next := live.Take(time.Now())
		if !sendTail(conn, entries, encode) {
			return
		}
		if !next.IsZero() {
			due.Reset(time.Until(next) + time.Millisecond)
		}
	}
}

// errTailSourceEnded closes a tail whose VictoriaLogs live tail stopped
// (VictoriaLogs restarted, say): the client reconnects.
var errTailSourceEnded = errors.New("VictoriaLogs ended the live tail; reconnect to resume")

// tailMessageEntries is Loki's maxEntriesPerTailResponse.
const tailMessageEntries = 100

// sendTail writes the entries (one stream object each), at most 100 a
// message; false when the connection failed.
func sendTail(conn *websocket.Conn, entries []model.Stream, encode tailEncoder) bool {
	for len(entries) > 0 {
		n := min(len(entries), tailMessageEntries)
		if err := conn.WriteMessage(websocket.TextMessage, encode(entries[:n])); err != nil {
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
