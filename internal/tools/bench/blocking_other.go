//go:build !linux

package bench

import (
	"io"
	"net"
	"time"
)

// dialBlocking, elsewhere than on Linux, is a plain net.Conn whose
// timeout bounds each read and write, as on Linux.
func dialBlocking(addr string, timeout time.Duration) (io.ReadWriteCloser, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &timedConn{Conn: c, timeout: timeout}, nil
}

type timedConn struct {
	net.Conn
	timeout time.Duration
}

func (c *timedConn) Read(p []byte) (int, error) {
	if err := c.SetReadDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *timedConn) Write(p []byte) (int, error) {
	if err := c.SetWriteDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
