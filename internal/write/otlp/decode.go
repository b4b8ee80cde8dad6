// Package otlp reads OpenTelemetry log export requests (OTLP over HTTP,
// /otlp/v1/logs) into Loki push requests with Loki v3.7.8's default OTLP
// mapping (pkg/loghttp/push/otlp.go): the resource attributes Loki indexes
// by default become stream labels, every other attribute structured
// metadata, the body the line.
package otlp

import (
	"fmt"
	"io"
	"net/http"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/vloki/vloki/internal/write/push"
)

// Decode reads an export request body per Content-Encoding (gzip, zstd,
// lz4 or none) and Content-Type (protobuf or JSON), as Loki does; maxBytes
// bounds the decompressed body.
func Decode(r *http.Request, maxBytes int64) (plog.Logs, error) {
	body, err := decompress(r)
	if err != nil {
		return plog.Logs{}, err
	}
	data, err := io.ReadAll(io.LimitReader(body, maxBytes+1))
	if err != nil {
		return plog.Logs{}, badRequest(err.Error())
	}
	if int64(len(data)) > maxBytes {
		return plog.Logs{}, &push.Error{Status: http.StatusRequestEntityTooLarge,
			Msg: fmt.Sprintf("request body too large: limit %d bytes", maxBytes)}
	}
	req := plogotlp.NewExportRequest()
	switch ct := r.Header.Get("Content-Type"); ct {
	case "application/x-protobuf":
		err = req.UnmarshalProto(data)
	case "application/json":
		err = req.UnmarshalJSON(data)
	default:
		return plog.Logs{}, badRequest(fmt.Sprintf("content type: %s is not supported", ct))
	}
	if err != nil {
		return plog.Logs{}, badRequest(err.Error())
	}
	return req.Logs(), nil
}

func decompress(r *http.Request) (io.Reader, error) {
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "":
		return r.Body, nil
	case "gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, badRequest(err.Error())
		}
		return zr, nil
	case "zstd":
		zr, err := zstd.NewReader(r.Body)
		if err != nil {
			return nil, badRequest(err.Error())
		}
		return zr.IOReadCloser(), nil
	case "lz4":
		return lz4.NewReader(r.Body), nil
	default:
		return nil, badRequest(fmt.Sprintf("unsupported content encoding %s: only gzip, lz4 and zstd are supported", enc))
	}
}

func badRequest(msg string) error { return &push.Error{Status: http.StatusBadRequest, Msg: msg} }
