package bench

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// blockingConn is a TCP connection read and written with blocking system
// calls: a client waiting for its answer sleeps in read(2) until the
// kernel wakes it, sparing the Go netpoller's epoll_wait and the thread
// hand-offs around it, which took a third of the load generator's CPU on
// a machine it shares with the server. Its timeout bounds each read and
// write (SO_RCVTIMEO, SO_SNDTIMEO), not a whole answer.
type blockingConn struct{ fd int }

func dialBlocking(addr string, timeout time.Duration) (io.ReadWriteCloser, error) {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, err
	}
	var sa syscall.Sockaddr
	domain := syscall.AF_INET
	if ip4 := ta.IP.To4(); ip4 != nil {
		a := &syscall.SockaddrInet4{Port: ta.Port}
		copy(a.Addr[:], ip4)
		sa = a
	} else {
		domain = syscall.AF_INET6
		a := &syscall.SockaddrInet6{Port: ta.Port}
		copy(a.Addr[:], ta.IP.To16())
		sa = a
	}
	fd, err := syscall.Socket(domain, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	tv := syscall.NsecToTimeval(timeout.Nanoseconds())
	for _, opt := range []error{
		syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1),
		syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv),
		syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv),
	} {
		if opt != nil {
			syscall.Close(fd)
			return nil, os.NewSyscallError("setsockopt", opt)
		}
	}
	for {
		err = syscall.Connect(fd, sa)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("connect", err)
	}
	return &blockingConn{fd: fd}, nil
}

var errTimeout = errors.New("i/o timeout")

func (c *blockingConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue // a signal (the Go runtime's preemption) cut the wait
		case err == syscall.EAGAIN:
			return 0, errTimeout
		case err != nil:
			return 0, os.NewSyscallError("read", err)
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := syscall.Write(c.fd, p[written:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return written, errTimeout
		case err != nil:
			return written, os.NewSyscallError("write", err)
		}
		written += n
	}
	return written, nil
}

func (c *blockingConn) Close() error { return syscall.Close(c.fd) }
