package bench

import (
	"bufio"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// closedLoop runs l.Clients clients for l.Duration, each sending its next
// request when its answer has been read, on keep-alive connections. It
// writes prepared bytes, parses only the answer's head and waits in
// blocking reads (dialBlocking): on a machine shared with the server the
// load generator takes as little CPU from it as it can. l.Timeout bounds
// each read and write.
func closedLoop(src source, l Load, done *atomic.Uint64) *tally {
	stop := time.Now().Add(l.Duration)
	return closedLoopWhile(src, l, done, func() bool { return time.Now().Before(stop) })
}

// closedLoopWhile is closedLoop until more reports false.
func closedLoopWhile(src source, l Load, done *atomic.Uint64, more func() bool) *tally {
	var seq atomic.Uint64
	tallies := make([]*tally, l.Clients)
	var wg sync.WaitGroup
	for c := range tallies {
		t := newTally()
		tallies[c] = t
		wg.Go(func() {
			cl := &client{timeout: l.Timeout, conns: map[string]*clientConn{}}
			defer cl.close()
			for more() {
				cl.do(src(seq.Add(1)), t)
				done.Add(1)
			}
		})
	}
	wg.Wait()
	all := newTally()
	for _, t := range tallies {
		all.merge(t)
	}
	return all
}

// client is one closed-loop client: a connection per address it talks to.
type client struct {
	timeout time.Duration
	conns   map[string]*clientConn
}

type clientConn struct {
	io.ReadWriteCloser
	r *bufio.Reader
}

// do sends p and reads its whole answer into t.
func (c *client) do(p *prepared, t *tally) {
	sent := time.Now()
	code, n, err := c.roundTrip(p)
	took := time.Since(sent)
	t.add(sent, took, code, n, err)
	t.addQuery(p.query, took)
}

func (c *client) roundTrip(p *prepared) (code int, n uint64, err error) {
	conn, err := c.conn(p.addr)
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if err != nil {
			c.drop(p.addr)
		}
	}()
	if _, err := conn.Write(p.raw); err != nil {
		return 0, 0, err
	}
	head, err := readHead(conn.r)
	if err != nil {
		return 0, 0, err
	}
	read, err := head.discardBody(conn.r)
	if err != nil {
		return 0, uint64(read), err
	}
	if head.close || head.untilClose() {
		c.drop(p.addr)
	}
	return head.status, uint64(read), nil
}

func (c *client) conn(addr string) (*clientConn, error) {
	if cc := c.conns[addr]; cc != nil {
		return cc, nil
	}
	nc, err := dialBlocking(addr, c.timeout)
	if err != nil {
		return nil, err
	}
	cc := &clientConn{ReadWriteCloser: nc, r: bufio.NewReaderSize(nc, 32<<10)}
	c.conns[addr] = cc
	return cc, nil
}

func (c *client) drop(addr string) {
	if cc := c.conns[addr]; cc != nil {
		cc.Close()
		delete(c.conns, addr)
	}
}

func (c *client) close() {
	for addr := range c.conns {
		c.drop(addr)
	}
}
