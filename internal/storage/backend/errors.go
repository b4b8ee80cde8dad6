package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/sony/gobreaker/v2"
)

// UnavailableError says VictoriaLogs could not be reached or dropped the
// connection. Its text names no address: the cause, with VictoriaLogs'
// URL, is for vloki's log (Unwrap).
type UnavailableError struct {
	Reason string
	Err    error
}

func (e *UnavailableError) Error() string {
	return "log storage unavailable: VictoriaLogs " + e.Reason + "; try again shortly"
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// TimeoutError says VictoriaLogs did not answer within the backend timeout.
type TimeoutError struct {
	After time.Duration
	Err   error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("log storage timeout: VictoriaLogs did not answer within %s (backend.timeout)", e.After)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// classify turns a transport error into one of the errors above; the
// caller's own cancellation or deadline is returned as the context's error.
func (c *Client) classify(ctx context.Context, err error) error {
	if err == nil || err == io.EOF { // a body read's end, not a failure
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &TimeoutError{After: c.http.Timeout, Err: err}
	}
	return &UnavailableError{Reason: reason(err), Err: err}
}

// reason names a transport failure in words, without addresses.
func reason(err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, errCircuitOpen):
		return "failed repeatedly and is given a moment to recover"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused the connection"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "reset the connection"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "closed the connection mid-answer"
	case errors.As(err, &dns):
		return "host name could not be resolved"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host is unreachable"
	}
	return "could not be reached"
}

// classifyingBody types the errors of reading an answer, which come from
// the connection too.
type classifyingBody struct {
	io.ReadCloser
	ctx context.Context
	c   *Client
}

func (b *classifyingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = b.c.classify(b.ctx, err)
	}
	return n, err
}

// errCircuitOpen fails a request without trying while VictoriaLogs is
// considered down.
var errCircuitOpen = errors.New("circuit open")

// Breaker timings: 5 consecutive transport failures open the circuit; after
// a second one request probes, and its success closes it again.
const (
	breakerFailures = 5
	breakerOpen     = time.Second
)

func newBreaker() *gobreaker.CircuitBreaker[*http.Response] {
	return gobreaker.NewCircuitBreaker[*http.Response](gobreaker.Settings{
		Name:        "victorialogs",
		MaxRequests: 1,
		Timeout:     breakerOpen,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= breakerFailures },
		// A caller giving up, or a slow answer, says nothing about
		// whether VictoriaLogs is up.
		IsExcluded: func(err error) bool {
			var ne net.Error
			return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
		},
	})
}

// breakerError names the breaker's refusals.
// Unreachable reports whether the circuit breaker is open: VictoriaLogs
// failed to answer so often that requests now fail fast.
func (c *Client) Unreachable() bool { return c.breaker.State() == gobreaker.StateOpen }

func breakerError(err error) error {
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return errCircuitOpen
	}
	return err
}

// storageNodeUnreachable reports a cluster's vlselect answering that it
// could not query one of its storage nodes (its /internal/select/ request
// failed in transport): VictoriaLogs answers 400 with the Go error.
func storageNodeUnreachable(body string) bool {
	if !strings.Contains(body, "/internal/select/") {
		return false
	}
	for _, s := range []string{"connection refused", "connection reset", "i/o timeout", "no such host", "EOF", "network is unreachable", "no route to host"} {
		if strings.Contains(body, s) {
			return true
		}
	}
	return false
}
