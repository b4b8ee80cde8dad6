package api

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vloki/vloki/internal/edge/metrics"
	"github.com/vloki/vloki/internal/edge/tenant"
)

// statusWriter remembers the status code a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
	// err is what writeError answered, for the log line: its cause may
	// hold what the answer must not show (VictoriaLogs' address).
	err error
}

// NoteError keeps the error the answer reports, for the log line.
func (w *statusWriter) NoteError(err error) { w.err = err }

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack hands the connection over, for the WebSocket tail.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("the connection cannot be taken over")
	}
	if w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return h.Hijack()
}

// instrument adds a request id, a log line and metrics to every request.
func (s *Server) instrument(route string, h http.HandlerFunc) http.Handler {
	observe := s.d.Metrics.RequestObserver(route)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		info := &requestInfo{}
		ctx, backendRequests := metrics.WithBackendRequestCounter(context.WithValue(r.Context(), requestInfoKey{}, info))
		h(sw, r.WithContext(ctx))
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		d := time.Since(start)
		observe(sw.status, d, backendRequests.Load())
		level := slog.LevelInfo
		if sw.status >= 500 {
			level = slog.LevelError
		}
		if !s.d.Log.Enabled(r.Context(), level) {
			return
		}
		id := r.Header.Get("X-Request-ID")
		if id == "" {
			id = newRequestID() // only for the log line
		}
		attrs := []slog.Attr{slog.String("request_id", id), slog.String("route", route),
			slog.String("method", r.Method), slog.String("tenant", info.tenant), slog.Int("status", sw.status),
			slog.Duration("duration", d), slog.Int64("backend_requests", backendRequests.Load())}
		if sw.err != nil && sw.status >= 500 {
			attrs = append(attrs, slog.String("error", errorChain(sw.err)))
		}
		s.d.Log.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// requestIDs are this process's random prefix and a counter: unique, and
// cheaper than reading randomness on every request.
var requestIDs = struct {
	prefix uint32
	seq    atomic.Uint64
}{prefix: rand.Uint32()}

func newRequestID() string {
	var raw [8]byte
	binary.BigEndian.PutUint32(raw[:4], requestIDs.prefix)
	binary.BigEndian.PutUint32(raw[4:], uint32(requestIDs.seq.Add(1)))
	return hex.EncodeToString(raw[:])
}

// requestInfo collects what the log line reports about a request.
type requestInfo struct {
	tenant string
}

type requestInfoKey struct{}

// tenantHandler is a handler told its request's tenant.
type tenantHandler func(w http.ResponseWriter, r *http.Request, t tenant.ID)

// withTenant resolves the tenant before the handler runs.
func (s *Server) withTenant(h tenantHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r, t, ok := s.resolveTenant(w, r)
		if !ok {
			return
		}
		h(w, r, t)
	}
}

// resolveTenant maps the request's tenant, noting it for the log line and
// in the request's context (tenant.NameFrom); on failure it answers the
// request itself.
func (s *Server) resolveTenant(w http.ResponseWriter, r *http.Request) (*http.Request, tenant.ID, bool) {
	ctx, t, ok := s.tenantContext(w, r)
	return r.WithContext(ctx), t, ok
}

// tenantContext is resolveTenant's context, for callers adding more to it
// before the one copy of the request.
func (s *Server) tenantContext(w http.ResponseWriter, r *http.Request) (context.Context, tenant.ID, bool) {
	name, t, err := s.d.Tenants.Resolve(r.Header)
	if err != nil {
		writeError(w, err)
		return r.Context(), t, false
	}
	if info, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
		info.tenant = name
	}
	return tenant.WithName(r.Context(), name), t, true
}

// errorChain is an error with the causes its text leaves out.
func errorChain(err error) string {
	msg := err.Error()
	for cause := errors.Unwrap(err); cause != nil; cause = errors.Unwrap(cause) {
		if c := cause.Error(); !strings.Contains(msg, c) {
			msg += ": " + c
		}
	}
	return msg
}
