package frontend

import (
	"bytes"
	"net/http"

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

// withGzip returns the answer with the gzipped body a hit sends to
// clients accepting gzip, when it is large enough for Compressed to gzip
// it (a copy: coalesced requests share the answer they got).
func (a *answer) withGzip() *answer {
	if a.gz != nil || len(a.body) < GzipMinSize || a.header.Get("Content-Encoding") != "" {
		return a
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzipLevel)
	_, _ = zw.Write(a.body)
	_ = zw.Close()
	c := *a
	c.gz = b.Bytes()
	return &c
}
