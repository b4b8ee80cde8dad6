package api

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/lokijson"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/live/tail"
	"github.com/vloki/vloki/internal/lokidata"
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

// openTails counts each tenant's live tails, as Loki's ingesters count
// their tailers for max_concurrent_tail_requests.
type openTails struct {
	mu sync.Mutex
	n  map[tenant.ID]int
}

// enter counts a new tail of the tenant, or refuses it with Loki's error
// when limit are open already (Loki checks after the upgrade, so the
// error is a close frame).
func (o *openTails) enter(t tenant.ID, limit int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := o.n[t]
	if n >= limit {
		return &loghttp.Error{Msg: fmt.Sprintf("rpc error: code = Code(400) desc = max concurrent tail requests limit exceeded, count > limit (%d > %d)", n+1, limit)}
	}
	if o.n == nil {
		o.n = map[tenant.ID]int{}
	}
	o.n[t] = n + 1
	return nil
}

func (o *openTails) leave(t tenant.ID) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n[t]--; o.n[t] <= 0 {
		delete(o.n, t)
	}
}

// tailEncoder writes one tail message.
type tailEncoder func(streams []lokidata.Stream) []byte

// tail serves /tail over a WebSocket: the newest limit entries since
// start, oldest first, then every new matching entry, as JSON text frames.
func (s *Server) tail(w http.ResponseWriter, r *http.Request, t tenant.ID) {
	flags := loghttp.EncodingFlags(r.Header)
	s.serveTail(w, r, t, func(streams []lokidata.Stream) []byte { return lokijson.AppendTail(nil, streams, flags) })
}

// serveTail runs a tail, each message written by encode.
func (s *Server) serveTail(w http.ResponseWriter, r *http.Request, t tenant.ID, encode tailEncoder) {
	tl, ok := s.openTail(w, r, t)
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
	if err := s.open.enter(t, s.limitsOf(t).MaxConcurrentTailRequests); err != nil {
		closeTail(conn, err)
		return
	}
	defer s.open.leave(t)
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
	history, err := tl.Start(ctx)
	if err != nil {
		closeTail(conn, err)
		return
	}
	if !sendTail(conn, history, encode) {
		return
	}
	s.streamTail(ctx, conn, tl, encode)
}

// openTail reads and plans a tail, answering the client on errors.
func (s *Server) openTail(w http.ResponseWriter, r *http.Request, t tenant.ID) (*tail.Tail, bool) {
	form, err := loghttp.ReadForm(r)
	if err != nil {
		writeError(w, err)
		return nil, false
	}
	sel, err := logql.ParseLogSelector(form.Query(), true)
	if err != nil {
		writeError(w, err)
		return nil, false
	}
	q, err := loghttp.ParseTailQuery(form, time.Now())
	if err == nil {
		err = loghttp.CheckEntriesLimit(q.Limit, s.limitsOf(t).MaxEntriesLimitPerQuery)
	}
	if err == nil {
		err = loghttp.CheckQueryLength(q.Start.UnixMilli(), time.Now().UnixMilli(), s.maxQueryLength(t))
	}
	if err != nil {
		writeError(w, err)
		return nil, false
	}
	tl, err := s.d.Tail.Open(r.Context(), t, q, sel, loghttp.EncodingFlags(r.Header).Categorize())
	if err != nil {
		writeError(w, err)
		return nil, false
	}
	return tl, true
}

// streamTail sends live entries as they fall due, and pings, until the
// client leaves, a source fails or the tail's time is up.
func (s *Server) streamTail(ctx context.Context, conn *websocket.Conn, tl *tail.Tail, encode tailEncoder) {
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
		case err := <-tl.Ended():
			closeTail(conn, err)
			return
		case <-tl.Ready():
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
		entries, next := tl.Take(time.Now())
		if !sendTail(conn, entries, encode) {
			return
		}
		if !next.IsZero() {
			due.Reset(time.Until(next) + time.Millisecond)
		}
	}
}

// tailMessageEntries is Loki's maxEntriesPerTailResponse.
const tailMessageEntries = 100

// sendTail writes the entries (one stream object each), at most 100 a
// message; false when the connection failed.
func sendTail(conn *websocket.Conn, entries []lokidata.Stream, encode tailEncoder) bool {
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
