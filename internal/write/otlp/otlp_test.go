package otlp

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/write/push"
)

func exportRequest(body []byte, contentType, encoding string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/otlp/v1/logs", bytes.NewReader(body))
	r.Header.Set("Content-Type", contentType)
	if encoding != "" {
		r.Header.Set("Content-Encoding", encoding)
	}
	return r
}

// TestDecodeLimit: a body over the limit is Loki's 413, nothing decoded.
func TestDecodeLimit(t *testing.T) {
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr(string(make([]byte, 4096)))
	body, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Decode(exportRequest(body, "application/x-protobuf", ""), 1024)
	var pe *push.Error
	if !errors.As(err, &pe) || pe.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("got %v, want a 413", err)
	}
}

// FuzzDecode: any body under any content type and encoding decodes and
// maps, or fails with a 4xx; never a panic.
func FuzzDecode(f *testing.F) {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "s")
	rl.Resource().Attributes().PutEmptyMap("m").PutStr("k", "v")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.Body().SetStr("line")
	lr.Attributes().PutEmptySlice("a").AppendEmpty().SetInt(1)
	pb, _ := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	js, _ := plogotlp.NewExportRequestFromLogs(ld).MarshalJSON()
	f.Add(pb, uint8(0), uint8(0))
	f.Add(js, uint8(1), uint8(0))
	f.Add([]byte("garbage"), uint8(2), uint8(1))
	f.Add([]byte{0x0a, 0xff, 0xff, 0x01}, uint8(0), uint8(3))
	types := []string{"application/x-protobuf", "application/json", "text/plain"}
	encodings := []string{"", "gzip", "zstd", "lz4", "br"}
	f.Fuzz(func(t *testing.T, body []byte, ct, enc uint8) {
		logs, err := Decode(exportRequest(body, types[int(ct)%len(types)], encodings[int(enc)%len(encodings)]), 1<<16)
		var pe *push.Error
		if err != nil {
			if !errors.As(err, &pe) || pe.Status/100 != 4 {
				t.Fatalf("error without a 4xx status: %v", err)
			}
			return
		}
		req, err := ToPush(logs, limits.Default().DiscoverServiceName, nil)
		if err == nil {
			_ = push.Validate(req, limits.Default(), time.Now())
		}
	})
}

// BenchmarkToPush maps an export shaped as the scale bench sends it: a
// resource per stream (service.name, cloud.region), 1,000 records over
// 10 streams, each with a severity and one attribute.
func BenchmarkToPush(b *testing.B) {
	ld := plog.NewLogs()
	for s := range 10 {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "benchmark")
		rl.Resource().Attributes().PutStr("cloud.region", "region-"+string(rune('a'+s)))
		recs := rl.ScopeLogs().AppendEmpty().LogRecords()
		for i := range 100 {
			lr := recs.AppendEmpty()
			lr.SetTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + i))
			lr.Body().SetStr("2026-11-27T10:00:00Z ip-10-0-0-1 process[42]: queen king castle")
			lr.SetSeverityText("INFO")
			lr.SetSeverityNumber(plog.SeverityNumberInfo)
			lr.Attributes().PutStr("input_type", "log")
		}
	}
	discover := limits.Default().DiscoverServiceName
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ToPush(ld, discover, nil); err != nil {
			b.Fatal(err)
		}
	}
}
