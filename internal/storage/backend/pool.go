package backend

import (
	"errors"
	"io"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// pool are the VictoriaLogs URLs of one role — a cluster's vlselect or
// vlinsert replicas, which answer alike — taken in turn. A URL that
// refused a connection is skipped for downAfterRefusal, then tried again
// by the next request (which marks it up or down again); when every URL
// is down, requests still go out in turn and fail as VictoriaLogs does.
type pool struct {
	urls []*url.URL
	// retryAt holds, per URL, the Unix ns before which it is skipped.
	retryAt []atomic.Int64
	next    atomic.Uint64
}

const downAfterRefusal = time.Second

// newPool parses a comma-separated list of URLs.
func newPool(raw string) (*pool, error) {
	p := &pool{}
	for _, part := range strings.Split(raw, ",") {
		u, err := parseBase(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		p.urls = append(p.urls, u)
	}
	p.retryAt = make([]atomic.Int64, len(p.urls))
	return p, nil
}

// pick is the index of the next URL in turn that is not down.
func (p *pool) pick() int {
	n := uint64(len(p.urls))
	start := p.next.Add(1)
	now := time.Now().UnixNano()
	for k := uint64(0); k < n; k++ {
		i := int((start + k) % n)
		if p.retryAt[i].Load() <= now {
			return i
		}
	}
	return int(start % n)
}

func (p *pool) markDown(i int) {
	p.retryAt[i].Store(time.Now().Add(downAfterRefusal).UnixNano())
}

func (p *pool) markUp(i int) { p.retryAt[i].Store(0) }

func (p *pool) String() string {
	parts := make([]string, len(p.urls))
	for i, u := range p.urls {
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}

// refused reports a request that never reached VictoriaLogs: another
// replica may take it, nothing was sent.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// rewind makes a request body sendable again, false when it cannot be.
func rewind(body io.Reader) bool {
	if body == nil {
		return true
	}
	s, ok := body.(io.Seeker)
	if !ok {
		return false
	}
	_, err := s.Seek(0, io.SeekStart)
	return err == nil
}
