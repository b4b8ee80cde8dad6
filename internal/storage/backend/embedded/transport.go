package embedded

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// handlerFunc reports whether it handled the request, like VictoriaLogs'
// vlinsert/vlselect/vlstorage RequestHandler functions.
type handlerFunc func(w http.ResponseWriter, r *http.Request) bool

// transport is an http.RoundTripper that serves requests by calling the
// in-process handlers. The handler's output streams through an io.Pipe, so
// large answers are never buffered whole.
type transport struct {
	gate     *gate
	handlers []handlerFunc
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, done, err := t.gate.enter(req.Context())
	if err != nil {
		return nil, err
	}
	req = prepareServerRequest(req.WithContext(ctx))
	pr, pw := io.Pipe()
	// A reader that stops reading must not hold the handler (and Stop) forever.
	stopClosing := context.AfterFunc(ctx, func() { _ = pr.CloseWithError(ctx.Err()) })
	rw := newPipeResponseWriter(pw)
	go func() {
		defer done()
		defer stopClosing() // a finished answer stays readable to its end
		t.serve(rw, req, pw)
	}()
	<-rw.committed
	return &http.Response{
		Status:        strconv.Itoa(rw.status) + " " + http.StatusText(rw.status),
		StatusCode:    rw.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rw.sent,
		Body:          pr,
		ContentLength: -1,
		Request:       req,
	}, nil
}

func (t *transport) serve(rw *pipeResponseWriter, req *http.Request, pw *io.PipeWriter) {
	defer func() {
		rw.commit()
		// An answer cut short by cancellation must not read as complete.
		_ = pw.CloseWithError(req.Context().Err())
		if req.Body != nil {
			_ = req.Body.Close()
		}
	}()
	for _, h := range t.handlers {
		if h(rw, req) {
			return
		}
	}
	http.NotFound(rw, req)
}

// prepareServerRequest fills the fields a server-side request has and a
// client-side one lacks.
func prepareServerRequest(req *http.Request) *http.Request {
	r := req.Clone(req.Context())
	r.RequestURI = req.URL.RequestURI()
	if r.RemoteAddr == "" {
		r.RemoteAddr = "127.0.0.1:0"
	}
	if r.Body == nil {
		r.Body = http.NoBody
	}
	return r
}

// pipeResponseWriter is the server side of the in-process exchange. Headers
// are frozen when the status is committed, as on a real connection.
type pipeResponseWriter struct {
	header    http.Header
	sent      http.Header
	status    int
	pw        *io.PipeWriter
	once      sync.Once
	committed chan struct{}
}

func newPipeResponseWriter(pw *io.PipeWriter) *pipeResponseWriter {
	return &pipeResponseWriter{header: http.Header{}, pw: pw, committed: make(chan struct{})}
}

func (w *pipeResponseWriter) Header() http.Header { return w.header }

func (w *pipeResponseWriter) WriteHeader(status int) {
	w.once.Do(func() {
		w.status = status
		w.sent = w.header.Clone()
		close(w.committed)
	})
}

func (w *pipeResponseWriter) commit() { w.WriteHeader(http.StatusOK) }

func (w *pipeResponseWriter) Write(p []byte) (int, error) {
	w.commit()
	return w.pw.Write(p)
}

// Flush is a no-op: every Write already reaches the reader.
func (w *pipeResponseWriter) Flush() {}
