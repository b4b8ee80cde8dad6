package scaleingest

import (
	"bytes"
	"net/http"

	"github.com/klauspost/compress/gzip"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
)

// otlpEncoder builds OTLP/HTTP log exports (protobuf, gzip as the
// collector's otlphttp exporter sends them, at its fastest level so the
// bench's own CPU stays small). A stream is a resource: the agent is its
// service.name and the region its cloud.region (both index labels by
// Loki's default OTLP mapping: service_name, cloud_region); the level is
// each record's severity; the other labels are record attributes
// (structured metadata in Loki).
type otlpEncoder struct {
	d    *scaledata.Dataset
	b    *batch
	buf  bytes.Buffer
	zw   *gzip.Writer
	body []byte
}

// OTLPSelector selects every line pushed over OTLP: the agent became
// service_name.
const OTLPSelector = `{service_name="` + scaledata.Agent + `"}`

func newOTLPEncoder(d *scaledata.Dataset) *otlpEncoder {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return &otlpEncoder{d: d, b: newBatch(d), zw: zw}
}

func (e *otlpEncoder) path() string { return "/otlp/v1/logs" }

func (e *otlpEncoder) header(h http.Header) {
	h.Set("Content-Type", "application/x-protobuf")
	h.Set("Content-Encoding", "gzip")
}

func (e *otlpEncoder) encode(lo, hi int) ([]byte, int64) {
	e.b.fill(lo, hi)
	logs := plog.NewLogs()
	e.b.streams(func(s int, ents []batchEntry) {
		rl := logs.ResourceLogs().AppendEmpty()
		recs := rl.ScopeLogs().AppendEmpty().LogRecords()
		recs.EnsureCapacity(len(ents))
		var attrs []otlpAttr
		for _, l := range e.d.Streams()[s].Labels {
			switch l.Name {
			case scaledata.LabelAgent:
				rl.Resource().Attributes().PutStr("service.name", l.Value)
			case scaledata.LabelRegion:
				rl.Resource().Attributes().PutStr("cloud.region", l.Value)
			default:
				attrs = append(attrs, otlpAttr{l.Name, l.Value})
			}
		}
		for _, en := range ents {
			lr := recs.AppendEmpty()
			lr.SetTimestamp(pcommon.Timestamp(en.timeNs))
			lr.Body().SetStr(string(e.b.line(en)))
			for _, a := range attrs {
				if a.name == scaledata.LabelLevel {
					lr.SetSeverityText(a.value)
					lr.SetSeverityNumber(severity(a.value))
					continue
				}
				lr.Attributes().PutStr(a.name, a.value)
			}
		}
	})
	raw, err := plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
	if err != nil {
		panic(err) // built above, always valid
	}
	e.buf.Reset()
	e.zw.Reset(&e.buf)
	_, _ = e.zw.Write(raw)
	_ = e.zw.Close()
	e.body = append(e.body[:0], e.buf.Bytes()...)
	return e.body, e.b.bytes
}

type otlpAttr struct{ name, value string }

// severity is OTLP's number for the dataset's levels.
func severity(level string) plog.SeverityNumber {
	switch level {
	case "DEBUG":
		return plog.SeverityNumberDebug
	case "WARN":
		return plog.SeverityNumberWarn
	case "ERROR":
		return plog.SeverityNumberError
	}
	return plog.SeverityNumberInfo
}
