package frontend

import (
	"bytes"
	"io"
	"net/http"
	"sync"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
)

// GzipMinSize is Loki's: its query frontend gzips answers of at least
// this many bytes for clients that accept gzip (NYTimes/gziphandler's
// default), and adds "Vary: Accept-Encoding" to every answer it serves.
const GzipMinSize = 1400

// gzipLevel favours speed: the bytes a client decompresses are the same
// at any level, and a cold answer pays the compression.
const gzipLevel = gzip.BestSpeed

// Compressor wraps handlers as Loki's frontend wraps its routes: answers
// of at least GzipMinSize bytes are gzipped when the request accepts gzip,
// and every answer varies by Accept-Encoding. Answers the results cache
// holds carry their gzipped bytes (answer.gz): a hit sends them as they
// are.
func Compressor() func(http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(GzipMinSize), gzhttp.CompressionLevel(gzipLevel),
		gzhttp.EnableZstd(false), gzhttp.ContentTypeFilter(gzhttp.CompressAllContentTypeFilter))
	if err != nil {
		panic(err) // the options above are constant and valid
	}
	return func(h http.Handler) http.Handler { return wrap(h) }
}

// Compressed is h wrapped by a Compressor.
func Compressed(h http.Handler) http.Handler { return Compressor()(h) }

// acceptsGzip reports whether w is Compressed's writer, which it only is
// for a request that accepts gzip.
func acceptsGzip(w http.ResponseWriter) bool {
	switch w.(type) {
	case *gzhttp.GzipResponseWriter, gzhttp.GzipResponseWriterWithCloseNotify:
		return true
	}
	return false
}

// gzipWriters are reused: a writer holds about a megabyte of tables and
// history, which each fill of the cache allocated anew.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzipLevel) // a valid constant level
	return zw
}}

// withGzip returns the answer with the gzipped body a hit sends to
// clients accepting gzip, when it is large enough for Compressed to gzip
// it (a copy: coalesced requests share the answer they got).
func (a *answer) withGzip() *answer {
	if a.gz != nil || len(a.body) < GzipMinSize || a.header.Get("Content-Encoding") != "" {
		return a
	}
	var b bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&b)
	_, _ = zw.Write(a.body)
	_ = zw.Close()
	gzipWriters.Put(zw)
	c := *a
	c.gz = b.Bytes()
	return &c
}

// kept is the answer as a cache holds it: the gzipped body alone when
// there is one (clients that do not accept gzip get it decompressed), in
// slices of exactly its length, so that the bytes a cache weighs are the
// bytes it holds (a buffer's spare capacity is up to its length again).
func (a *answer) kept() *answer {
	c := *a
	if a.gz != nil {
		c.body, c.gz = nil, bytes.Clone(a.gz)
	} else {
		c.body = bytes.Clone(a.body)
	}
	return &c
}

// plainBody is the answer's body as it was written: a kept answer holding
// only its gzipped body decompresses it.
func (a *answer) plainBody() ([]byte, error) {
	if len(a.body) > 0 || a.gz == nil {
		return a.body, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(a.gz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
