package onewrite

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
)

// countingListener counts the writes on its connections.
type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, writes: &l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// serve answers /whole/N and /plain/N with N bytes, through Whole or not.
func serve(t *testing.T) (*countingListener, string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	answer := func(whole bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			n, _ := strconv.Atoi(r.PathValue("n"))
			body := bytes.Repeat([]byte("x"), n)
			write := func() {
				w.Header().Set("Content-Length", strconv.Itoa(n))
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(body)
			}
			if whole {
				Whole(w, r, n, write)
			} else {
				write()
			}
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/whole/{n}", answer(true))
	mux.HandleFunc("/plain/{n}", answer(false))
	srv := &http.Server{Handler: mux, ConnContext: ConnContext}
	go func() { _ = srv.Serve(Listener{Listener: cl}) }()
	t.Cleanup(func() { _ = srv.Close() })
	return cl, "http://" + ln.Addr().String()
}

func TestAnAnswerLeavesInOneWrite(t *testing.T) {
	cl, base := serve(t)
	client := &http.Client{Transport: &http.Transport{}}
	get := func(path string, n int) int64 {
		before := cl.writes.Load()
		resp, err := client.Get(base + path + strconv.Itoa(n))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || len(body) != n || resp.StatusCode != 200 {
			t.Fatalf("%s%d: %d bytes, status %d, %v", path, n, len(body), resp.StatusCode, err)
		}
		return cl.writes.Load() - before
	}
	for _, n := range []int{100, 5000, 20000, 60000} {
		for range 2 { // the connection is reused after a held answer
			if w := get("/whole/", n); w != 1 {
				t.Fatalf("a %d-byte answer left in %d writes", n, w)
			}
		}
	}
	if w := get("/plain/", 20000); w < 2 {
		t.Fatalf("net/http alone sent 20,000 bytes in %d write: the test proves nothing", w)
	}
	if w := get("/whole/", 200000); w < 2 {
		t.Fatalf("an answer over MaxHeld was held (%d write)", w)
	}
	if w := get("/whole/", 5000); w != 1 {
		t.Fatalf("after a large answer: %d writes", w)
	}
}
