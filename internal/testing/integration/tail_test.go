package integration

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// tailMessage is one frame of /tail.
type tailMessage struct {
	Streams []struct {
		Stream map[string]string `json:"stream"`
		Values [][]any           `json:"values"`
	} `json:"streams"`
}

func (m tailMessage) lines() []string {
	var out []string
	for _, s := range m.Streams {
		for _, v := range s.Values {
			out = append(out, v[1].(string))
		}
	}
	return out
}

// TestTail checks the WebSocket tail on both backends: the newest limit
// entries since start come first, oldest first, with the pipeline
// applied; entries pushed afterwards follow.
func TestTail(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			now := time.Now()
			old := []entry{
				{ns(now.Add(-30 * time.Minute)), "x old1"}, {ns(now.Add(-20 * time.Minute)), "x old2"},
				{ns(now.Add(-15 * time.Minute)), "y skipped"}, {ns(now.Add(-10 * time.Minute)), "x old3"},
				{ns(now.Add(-2 * time.Hour)), "x before start"},
			}
			tg.pushJSON(t, "tail", jsonPush(map[string]string{"app": "tail"}, old...))
			params := url.Values{"query": {`{app="tail"} |= "x" | line_format "{{.app}}: {{__line__}}"`}, "limit": {"2"},
				"start": {ns(now.Add(-time.Hour))}}
			conn := dialTail(t, tg, params)
			defer conn.Close()
			hist := readTail(t, conn)
			if got := strings.Join(hist.lines(), "|"); got != "tail: x old2|tail: x old3" {
				t.Fatalf("history: %q", got)
			}
			// Loki's tailer sends one stream object per entry.
			if len(hist.Streams) != 2 || len(hist.Streams[0].Values) != 1 {
				t.Fatalf("history layout: %+v", hist)
			}
			tg.pushJSON(t, "tail", jsonPush(map[string]string{"app": "tail"}, entry{ns(time.Now()), "x live"}, entry{ns(time.Now()), "y live"}))
			if got := strings.Join(readTail(t, conn).lines(), "|"); got != "tail: x live" {
				t.Fatalf("live: %q", got)
			}
		})
	}
}

func TestTailErrors(t *testing.T) {
	tg := targets(t)[0]
	cases := []struct {
		params url.Values
		want   string
	}{
		{url.Values{"query": {`{app="tail"}`}, "delay_for": {"6"}}, "delay_for can't be greater than 5"},
		{url.Values{"query": {`{app="tail"`}}, "parse error at line 1, col 12: syntax error: unexpected $end, expecting } or ,"},
		{url.Values{"query": {`{app="tail"}`}, "limit": {"6000"}}, "max entries limit per query exceeded, limit > max_entries_limit_per_query (6000 > 5000)"},
	}
	for _, c := range cases {
		r := tg.get(t, "/loki/api/v1/tail", "tail", c.params, nil)
		if r.status != http.StatusBadRequest || strings.TrimSpace(string(r.body)) != c.want {
			t.Errorf("%v: %d %q", c.params, r.status, r.body)
		}
	}
}

// TestTailHistoryTimesOutAsLoki: Loki's querier reads a tail's history
// under the query timeout; an expired one closes the tail with 1011 and
// the error as it is (not the HTTP answer's text, which would not fit in
// a close frame).
func TestTailHistoryTimesOutAsLoki(t *testing.T) {
	tg := targetsWithTimeout(t, time.Nanosecond)[0]
	conn := dialTail(t, tg, url.Values{"query": {`{app="tail"}`}})
	defer conn.Close()
	if err := conn.SetReadDeadline(time.Now().Add(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, _, err := conn.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseInternalServerErr || ce.Text != context.DeadlineExceeded.Error() {
		t.Fatalf("got %v", err)
	}
}

func dialTail(t *testing.T, tg target, params url.Values) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(tg.url, "http") + "/loki/api/v1/tail?" + params.Encode()
	conn, resp, err := websocket.DefaultDialer.Dial(u, http.Header{"X-Scope-OrgID": {"tail"}})
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	return conn
}

// readTail waits for the next message, at most 15 s.
func readTail(t *testing.T, conn *websocket.Conn) tailMessage {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, b, err := conn.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	var m tailMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

// TestTailConcurrencyLimitAsLoki: a tenant may have
// max_concurrent_tail_requests (10) tails open; one more is upgraded and
// then closed with 1011 and Loki's error, as Loki's querier checks after
// the upgrade. Another tenant is not counted, and a closed tail makes
// room again.
func TestTailConcurrencyLimitAsLoki(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			now := time.Now()
			for _, tenant := range []string{"tail-lim", "tail-other"} {
				tg.pushJSON(t, tenant, jsonPush(map[string]string{"app": "tail-lim"}, entry{ns(now.Add(-time.Minute)), "held"}))
			}
			params := url.Values{"query": {`{app="tail-lim"}`}, "start": {ns(now.Add(-time.Hour))}}
			var open []*websocket.Conn
			defer func() {
				for _, c := range open {
					c.Close()
				}
			}()
			for range 10 {
				c := dialTailAs(t, tg, "tail-lim", params)
				open = append(open, c)
				readTail(t, c)
			}
			over := dialTailAs(t, tg, "tail-lim", params)
			defer over.Close()
			_ = over.SetReadDeadline(time.Now().Add(15 * time.Second))
			_, _, err := over.ReadMessage()
			var ce *websocket.CloseError
			want := "rpc error: code = Code(400) desc = max concurrent tail requests limit exceeded, count > limit (11 > 10)"
			if !errors.As(err, &ce) || ce.Code != websocket.CloseInternalServerErr || ce.Text != want {
				t.Fatalf("the 11th tail: %v", err)
			}
			other := dialTailAs(t, tg, "tail-other", params)
			defer other.Close()
			readTail(t, other)

			open[0].Close()
			deadline := time.Now().Add(10 * time.Second)
			for {
				c := dialTailAs(t, tg, "tail-lim", params)
				_ = c.SetReadDeadline(time.Now().Add(15 * time.Second))
				_, _, err := c.ReadMessage()
				c.Close()
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no room after a tail closed: %v", err)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
