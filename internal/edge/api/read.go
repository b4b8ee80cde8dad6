package api

import (
	"context"
	"net/http"
	"time"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/frontend"
	"github.com/vloki/vloki/internal/read/queue"
)

// decoder turns a request at the edge into its typed form and identity.
type decoder[Q any] func(edge) (Q, loghttp.Identity, error)

// server answers a decoded request, told what the frontend read for it.
type server[Q any] func(w http.ResponseWriter, ctx context.Context, t tenant.ID, q Q, st frontend.ReadState)

// readRoute is a read endpoint in request order: the tenant resolved,
// Loki's response compression when on, the request decoded once, the
// frontend (results cache, read-your-writes wait, coalescing), the
// queue, and serve.
func readRoute[Q any](s *Server, route string, decode decoder[Q], serve server[Q]) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r, t, ok := s.resolveTenant(w, r)
		if !ok {
			return
		}
		answer := func(w http.ResponseWriter, r *http.Request) {
			q, id, err := decodeEdge(r, t, decode)
			if err != nil {
				writeError(w, err)
				return
			}
			req := &frontend.Request{Route: route, Path: r.URL.Path, Tenant: t, Identity: id}
			s.d.Frontend.Serve(w, r, req, func(w http.ResponseWriter, ctx context.Context, st frontend.ReadState) {
				s.scheduled(w, ctx, t, id.Span, func() { serve(w, ctx, t, q, st) })
			})
		}
		if s.compress != nil {
			s.compress(http.HandlerFunc(answer)).ServeHTTP(w, r)
			return
		}
		answer(w, r)
	}
}

// decodeEdge reads the request's parameters and headers once and decodes
// them.
func decodeEdge[Q any](r *http.Request, t tenant.ID, decode decoder[Q]) (Q, loghttp.Identity, error) {
	form, err := loghttp.ReadForm(r)
	if err != nil {
		var zero Q
		return zero, loghttp.Identity{}, err
	}
	return decode(edge{r: r, form: form, headers: loghttp.ReadHeaders(r.Header), tenant: t, now: time.Now()})
}

// scheduled runs a query once the queue admits it: long-range queries in
// their own, capped, lane. A full tenant queue answers Loki's 429.
func (s *Server) scheduled(w http.ResponseWriter, ctx context.Context, t tenant.ID, span time.Duration, run func()) {
	if s.d.Queue == nil {
		run()
		return
	}
	lane := queue.Short
	if span > s.d.LongQuerySpan {
		lane = queue.Long
	}
	release, err := s.d.Queue.Acquire(ctx, t, lane)
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	run()
}
