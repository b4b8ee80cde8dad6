package push

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/golang/snappy"
	lokipush "github.com/grafana/loki/pkg/push"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"

	"github.com/vloki/vloki/internal/lokidata"
)

// Decode reads a push body per Content-Encoding and Content-Type, as Loki
// does: JSON for application/json, snappy protobuf for anything else.
// maxBytes bounds the decompressed body.
func Decode(r *http.Request, maxBytes int64) (*Request, error) {
	body, err := decompress(r)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(body, maxBytes+1))
	if err != nil {
		return nil, badRequest("%s", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, &Error{Status: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf("request body too large: limit %d bytes", maxBytes)}
	}
	mediaType := ""
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mediaType, _, err = mime.ParseMediaType(ct); err != nil {
			return nil, badRequest("%s", err)
		}
	}
	if mediaType == "application/json" {
		if strings.HasPrefix(r.URL.Path, "/api/prom/") {
			return decodeLegacyJSON(data)
		}
		return decodeJSON(data)
	}
	return decodeProto(data)
}

func decompress(r *http.Request) (io.Reader, error) {
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "", "snappy":
		return r.Body, nil
	case "gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, badRequest("%s", err)
		}
		return zr, nil
	case "deflate":
		return flate.NewReader(r.Body), nil
	default:
		return nil, badRequest("Content-Encoding %q not supported", enc)
	}
}

func decodeProto(data []byte) (*Request, error) {
	raw, err := snappy.Decode(nil, data)
	if err != nil {
		return nil, badRequest("%s", err)
	}
	var pr lokipush.PushRequest
	if err := pr.Unmarshal(raw); err != nil {
		return nil, badRequest("%s", err)
	}
	req := &Request{Streams: make([]Stream, 0, len(pr.Streams))}
	for _, ps := range pr.Streams {
		ls, err := parseLabels(ps.Labels)
		if err != nil {
			return nil, err
		}
		s := Stream{Labels: ls, Entries: make([]lokidata.Entry, 0, len(ps.Entries))}
		for _, pe := range ps.Entries {
			e := lokidata.Entry{TimestampNs: pe.Timestamp.UnixNano(), Line: pe.Line}
			for _, l := range pe.StructuredMetadata {
				e.StructuredMetadata = append(e.StructuredMetadata, lokidata.Label{Name: l.Name, Value: l.Value})
			}
			s.Entries = append(s.Entries, e)
		}
		req.Streams = append(req.Streams, s)
	}
	return req, nil
}

var errEmptyBody = errors.New("empty body")

func trimmed(data []byte) ([]byte, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errEmptyBody
	}
	return data, nil
}
