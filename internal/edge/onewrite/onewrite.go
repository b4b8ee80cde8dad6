// Package onewrite sends an HTTP/1.1 answer whose bytes are all known in
// one write on its connection.
//
// net/http buffers at most 4 KiB before writing to the connection, so an
// answer of 4-64 KiB leaves in two or more writes. On loopback and on fast
// networks each write costs about as much as the bytes it carries (the
// kernel's TCP path, the peer's wake-up); vloki's cached answers are
// mostly of that size. A connection accepted through Listener can hold its
// writes while one answer is written (Whole) and send them together.
//
// Bound: a connection holds at most MaxHeld bytes, and only while Whole
// runs, in a buffer it returns to a shared pool right after; larger
// answers are written as net/http writes them.
package onewrite

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// MaxHeld is the most an answer may weigh (headers and body) to be held
// and sent in one write.
const MaxHeld = 64 << 10

// Listener wraps accepted connections so Whole can hold their writes.
type Listener struct{ net.Listener }

// Accept wraps the next connection.
func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &Conn{Conn: c}, nil
}

// ConnContext is http.Server's ConnContext hook: it makes a Listener's
// connection reachable from its requests.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if oc, ok := c.(*Conn); ok {
		return context.WithValue(ctx, connKey{}, oc)
	}
	return ctx
}

type connKey struct{}

// Conn is an accepted connection whose writes can be held.
type Conn struct {
	net.Conn
	mu      sync.Mutex
	holding bool
	held    *[]byte
}

// buffers are the held bytes of answers being written.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// Write sends p, or keeps it while an answer is held.
func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.holding {
		*c.held = append(*c.held, p...)
		c.mu.Unlock()
		return len(p), nil
	}
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// CloseWrite half-closes the TCP connection, as net/http does before
// closing after an error (so the client reads the answer, not a reset).
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *Conn) hold() {
	c.mu.Lock()
	c.holding, c.held = true, buffers.Get().(*[]byte)
	c.mu.Unlock()
}

// release sends what was held in one write.
func (c *Conn) release() error {
	c.mu.Lock()
	held := c.held
	c.holding, c.held = false, nil
	c.mu.Unlock()
	var err error
	if len(*held) > 0 {
		_, err = c.Conn.Write(*held)
	}
	if cap(*held) <= 2*MaxHeld { // an unexpectedly large one is dropped
		*held = (*held)[:0]
		buffers.Put(held)
	}
	return err
}

// Whole runs write, which writes a GET's whole answer of about size bytes
// (status, headers with Content-Length, body) to w, and sends it in one
// write on the connection when it is one of Listener's and the answer
// fits MaxHeld. A failed write closes the connection.
func Whole(w http.ResponseWriter, r *http.Request, size int, write func()) {
	c, _ := r.Context().Value(connKey{}).(*Conn)
	// Only a GET: its request is read whole, so net/http will not want to
	// close the connection after headers it has already sent.
	// An answer well under net/http's 4 KiB buffer leaves in one write anyway.
	if c == nil || size < 3<<10 || size+1024 > MaxHeld || r.Method != http.MethodGet {
		write()
		return
	}
	c.hold()
	defer func() {
		if c.release() != nil {
			_ = c.Conn.Close()
		}
	}()
	write()
	// Pushes net/http's buffers down to c; were it refused, what stays
	// buffered follows the held bytes, in order.
	_ = http.NewResponseController(w).Flush()
}

// Install sets srv up to hold answers and returns ln wrapped, for
// srv.Serve.
func Install(srv *http.Server, ln net.Listener) net.Listener {
	srv.ConnContext = ConnContext
	return Listener{Listener: ln}
}
