package frontend

import (
	"net/http"
	"strconv"

	"github.com/vloki/vloki/internal/edge/onewrite"
)

// answer is one recorded HTTP answer.
type answer struct {
	status int
	header http.Header
	body   []byte
	// gz is body gzipped (withGzip), sent to clients accepting gzip.
	gz []byte
	// complete is false when the handler hijacked or flushed mid-way
	// (never the case for cacheable routes, checked anyway).
	complete bool
	// err is the error the answer reports, for the request's log line.
	err error
}

// ErrorNoter is a ResponseWriter that keeps the error an answer reports,
// for logging.
type ErrorNoter interface{ NoteError(error) }

// size is what the answer weighs in a cache.
func (a *answer) size() int {
	n := len(a.body) + len(a.gz) + 64
	for k, vs := range a.header {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	return n
}

// writeTo sends the answer to r's client, in one write when it can
// (onewrite).
func (a *answer) writeTo(w http.ResponseWriter, r *http.Request) {
	if n, ok := w.(ErrorNoter); ok && a.err != nil {
		n.NoteError(a.err)
	}
	gzipped := a.gz != nil && acceptsGzip(w)
	body := a.gz
	if !gzipped {
		b, err := a.plainBody()
		if err != nil { // only a cache's corrupted bytes get here
			http.Error(w, "results cache: "+err.Error(), http.StatusInternalServerError)
			return
		}
		body = b
	}
	h := w.Header()
	for k, vs := range a.header {
		h[k] = vs
	}
	if gzipped {
		// Compressed passes an encoded body through as it is.
		h["Content-Encoding"] = gzipEncoding
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	onewrite.Whole(w, r, len(body), func() {
		w.WriteHeader(a.status)
		_, _ = w.Write(body)
	})
}

// recorder is an http.ResponseWriter that keeps the answer.
type recorder struct {
	header  http.Header
	status  int
	body    []byte
	flushed bool
	err     error
}

// NoteError keeps the error the handler answered.
func (r *recorder) NoteError(err error) { r.err = err }

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body = append(r.body, p...)
	return len(p), nil
}

// takeBody keeps b as the whole body when nothing was written yet, so an
// answer built in one buffer is not copied into a second.
func (r *recorder) takeBody(b []byte) bool {
	if len(r.body) > 0 {
		return false
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body = b
	return true
}

// WriteWhole writes an answer's whole body, b, which the caller hands
// over: the frontend keeps it as it is instead of copying it (the
// answers of 50 clients at once were held twice over, one copy each
// being built and one kept).
func WriteWhole(w http.ResponseWriter, b []byte) {
	if r, ok := w.(*recorder); ok && r.takeBody(b) {
		return
	}
	_, _ = w.Write(b)
}

// Flush only notes that the handler streamed: the answer is sent whole.
func (r *recorder) Flush() { r.flushed = true }

func (r *recorder) answer() *answer {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	a := &answer{status: r.status, header: r.header.Clone(), body: r.body, complete: !r.flushed, err: r.err}
	if _, ok := a.header["Content-Length"]; !ok && a.complete {
		// A known length spares the chunked framing, and is one header
		// hits share.
		a.header["Content-Length"] = []string{strconv.Itoa(len(a.body))}
	}
	return a
}

var gzipEncoding = []string{"gzip"}
