package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http/httputil"
	"strconv"
)

// responseHead is what the closed loop needs of an HTTP/1.1 answer's
// head: read without building an http.Response, its header map and its
// body reader, which cost the load generator more CPU than the server
// spends on a cached answer.
type responseHead struct {
	status        int
	contentLength int64 // -1: none given
	chunked       bool
	close         bool
}

var errMalformed = errors.New("malformed HTTP answer")

// readHead reads the status line and the header fields.
func readHead(r *bufio.Reader) (responseHead, error) {
	h := responseHead{contentLength: -1}
	line, err := r.ReadSlice('\n')
	if err != nil {
		return h, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return h, fmt.Errorf("%w: %q", errMalformed, line)
	}
	if h.status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return h, fmt.Errorf("%w: %q", errMalformed, line)
	}
	h.close = line[7] == '0' // HTTP/1.0 closes unless told otherwise
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return h, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			return h, nil
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return h, fmt.Errorf("%w: header %q", errMalformed, line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if h.contentLength, err = strconv.ParseInt(string(value), 10, 64); err != nil {
				return h, fmt.Errorf("%w: %q", errMalformed, line)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			h.chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			h.close = bytes.EqualFold(value, []byte("close"))
		}
	}
}

func (h responseHead) bodyless() bool { return h.status == 204 || h.status == 304 || h.status/100 == 1 }

// untilClose: the body ends when the server closes the connection.
func (h responseHead) untilClose() bool { return !h.bodyless() && !h.chunked && h.contentLength < 0 }

// discardBody reads the body the head announces and counts its bytes.
func (h responseHead) discardBody(r *bufio.Reader) (int64, error) {
	switch {
	case h.bodyless():
		return 0, nil
	case h.chunked:
		n, err := io.Copy(io.Discard, httputil.NewChunkedReader(r))
		if err != nil {
			return n, err
		}
		return n, skipTrailer(r)
	case h.contentLength >= 0:
		n, err := r.Discard(int(h.contentLength))
		return int64(n), err
	default: // untilClose
		return io.Copy(io.Discard, r)
	}
}

// skipTrailer reads a chunked body's trailer fields up to the empty line
// that ends the answer (the chunked reader stops before them).
func skipTrailer(r *bufio.Reader) error {
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			return nil
		}
	}
}
