package push

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	lokipush "github.com/grafana/loki/pkg/push"
	"github.com/klauspost/compress/snappy"

	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/lokidata"
)

var now = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func request(body []byte, contentType, encoding string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/loki/api/v1/push", bytes.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	if encoding != "" {
		r.Header.Set("Content-Encoding", encoding)
	}
	return r
}

func TestDecodeJSON(t *testing.T) {
	body := `{"streams":[{"stream":{"app":"a","env":"prod"},"values":[["1714564800000000001","héllo \u001b[31m",{"trace_id":"t1"}],["1714564800000000002",""],null]}]}`
	req, err := Decode(request([]byte(body), "application/json; charset=utf-8", ""), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	s := req.Streams[0]
	if s.Labels.String() != `{app="a", env="prod"}` || len(s.Entries) != 2 {
		t.Fatalf("got %+v", s)
	}
	if e := s.Entries[0]; e.TimestampNs != 1714564800000000001 || e.Line != "héllo \x1b[31m" || e.StructuredMetadata.String() != `{trace_id="t1"}` {
		t.Fatalf("entry %+v", e)
	}
	if s.Entries[1].Line != "" {
		t.Fatal("empty line lost")
	}
}

func TestDecodeProtobufGzip(t *testing.T) {
	pr := lokipush.PushRequest{Streams: []lokipush.Stream{{Labels: `{job="x", app="y"}`,
		Entries: []lokipush.Entry{{Timestamp: now, Line: "l1", StructuredMetadata: lokipush.LabelsAdapter{{Name: "k", Value: "v"}}}}}}}
	raw, _ := pr.Marshal()
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write(snappy.Encode(nil, raw))
	_ = w.Close()
	for _, c := range []struct {
		body     []byte
		encoding string
	}{{snappy.Encode(nil, raw), ""}, {snappy.Encode(nil, raw), "snappy"}, {gz.Bytes(), "gzip"}} {
		req, err := Decode(request(c.body, "application/x-protobuf", c.encoding), 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", c.encoding, err)
		}
		s := req.Streams[0]
		if s.Labels.String() != `{app="y", job="x"}` || s.Entries[0].TimestampNs != now.UnixNano() || s.Entries[0].StructuredMetadata[0].Value != "v" {
			t.Fatalf("%s: got %+v", c.encoding, s)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		body, ct, enc, want string
	}{
		{`{}`, "application/json", "br", `Content-Encoding "br" not supported`},
		{`{"streams":[{"stream":{"a":"b"},"values":[[1714564800,"x"]]}]}`, "application/json", "", "timestamp must be a string of Unix nanoseconds"},
		{`not snappy`, "", "", "snappy"},
	}
	for _, c := range cases {
		_, err := Decode(request([]byte(c.body), c.ct, c.enc), 1<<20)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v want %q", c.body, err, c.want)
		}
		if e, ok := err.(*Error); !ok || e.Status != 400 {
			t.Errorf("%s: want a 400 *Error, got %#v", c.body, err)
		}
	}
}

func stream(labels string, entries ...lokidata.Entry) Stream {
	ls, err := parseLabels(labels)
	if err != nil {
		panic(err)
	}
	return Stream{Labels: ls, Entries: entries}
}

func TestServiceNameDiscovery(t *testing.T) {
	cases := map[string]string{
		`{app="a", job="j"}`:          "a",
		`{job="j", container="c"}`:    "c",
		`{service="s", app="a"}`:      "s",
		`{foo="bar"}`:                 ServiceUnknown,
		`{service_name="x", app="a"}`: "x",
	}
	for in, want := range cases {
		req := &Request{Streams: []Stream{stream(in)}}
		if err := Validate(req, limits.Default(), now); err != nil {
			t.Fatal(err)
		}
		if got, _ := req.Streams[0].Labels.Get(ServiceNameLabel); got != want {
			t.Errorf("%s: service_name %q want %q", in, got, want)
		}
	}
}

func TestDetectedLevel(t *testing.T) {
	cases := []struct {
		labels, line, md, want string
	}{
		{`{app="a"}`, `{"level":"WARN","msg":"x"}`, "", "warn"},
		{`{app="a"}`, `{"nested":{"severity":"err"}}`, "", "error"},
		{`{app="a"}`, `ts=1 level=debug msg="x"`, "", "debug"},
		{`{app="a"}`, `ts=1 msg="x" LVL=inf`, "", "info"},
		{`{app="a"}`, `2024-01-01 ERROR something failed`, "", "error"},
		{`{app="a"}`, `nothing to see here`, "", "unknown"},
		{`{app="a"}`, `misc:error is not a level`, "", "unknown"},
		{`{app="a", level="Critical"}`, `debug text`, "", "critical"},
		{`{app="a"}`, `plain`, "severity", "fatal"},
	}
	for _, c := range cases {
		e := lokidata.Entry{TimestampNs: now.UnixNano(), Line: c.line}
		if c.md != "" {
			e.StructuredMetadata = lokidata.Labels{{Name: c.md, Value: "FATAL"}}
		}
		req := &Request{Streams: []Stream{stream(c.labels, e)}}
		if err := Validate(req, limits.Default(), now); err != nil {
			t.Fatal(err)
		}
		got, _ := req.Streams[0].Entries[0].StructuredMetadata.Get(DetectedLevelLabel)
		if got != c.want {
			t.Errorf("%s %q: detected_level %q want %q", c.labels, c.line, got, c.want)
		}
	}
}

func TestValidationErrors(t *testing.T) {
	long := strings.Repeat("x", 256*1024+1)
	cases := []struct {
		s    Stream
		want string
	}{
		{Stream{}, "error at least one label pair is required per stream"},
		{stream(`{app="a"}`, lokidata.Entry{TimestampNs: now.Add(time.Hour).UnixNano(), Line: "x"}),
			`entry for stream '{app="a", service_name="a"}' has timestamp too new: 2024-05-01T13:00:00Z`},
		{stream(`{app="a"}`, lokidata.Entry{TimestampNs: now.UnixNano(), Line: long}),
			`max entry size '262144' bytes exceeded for stream '{app="a", service_name="a"}' while adding an entry with length '262145' bytes`},
		{Stream{Labels: lokidata.Labels{{Name: "0bad", Value: "x"}}}, `couldn't parse labels: invalid label name "0bad"`},
	}
	for _, c := range cases {
		err := Validate(&Request{Streams: []Stream{c.s}}, limits.Default(), now)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"streams":[{"stream":{"a":"b"},"values":[["1","x",{"k":"v"}]]}]}`), true)
	f.Add([]byte("garbage"), false)
	f.Fuzz(func(t *testing.T, body []byte, isJSON bool) {
		ct := ""
		if isJSON {
			ct = "application/json"
		}
		req, err := Decode(request(body, ct, ""), 1<<20)
		if err == nil {
			_ = Validate(req, limits.Default(), now)
		}
	})
}

// FuzzDecodeEncoded: compressed bodies under every Content-Encoding and
// Content-Type, valid compressions of fuzzed payloads and garbage alike,
// decode or fail with a Loki status; never panic, never exceed the limit.
func FuzzDecodeEncoded(f *testing.F) {
	f.Add([]byte(`{"streams":[{"stream":{"a":"b"},"values":[["1","x"]]}]}`), uint8(0), "application/json", true)
	f.Add([]byte("\x1f\x8b garbage"), uint8(1), "application/x-protobuf", false)
	f.Add([]byte{}, uint8(3), "text/plain; charset=", false)
	encodings := []string{"", "gzip", "deflate", "snappy", "zstd", "br", "identity", "gzip, gzip"}
	f.Fuzz(func(t *testing.T, payload []byte, enc uint8, contentType string, compress bool) {
		encoding := encodings[int(enc)%len(encodings)]
		body := payload
		if compress {
			body = compressAs(encoding, payload)
		}
		req, err := Decode(request(body, contentType, encoding), 1<<16)
		var pe *Error
		switch {
		case err == nil:
			_ = Validate(req, limits.Default(), now)
		case !errors.As(err, &pe) || pe.Status < 400 || pe.Status > 499:
			t.Fatalf("error without a 4xx status: %v", err)
		}
	})
}

func compressAs(encoding string, p []byte) []byte {
	var b bytes.Buffer
	switch encoding {
	case "gzip":
		w := gzip.NewWriter(&b)
		_, _ = w.Write(p)
		_ = w.Close()
	case "deflate":
		w, _ := flate.NewWriter(&b, flate.DefaultCompression)
		_, _ = w.Write(p)
		_ = w.Close()
	case "snappy":
		return snappy.Encode(nil, p)
	default:
		return p
	}
	return b.Bytes()
}

// TestCorruptBodiesKeepGoErrorTexts: the decompressors (klauspost's, for
// speed) fail a corrupt gzip or deflate body with the texts Go's own
// packages give, which are Loki's.
func TestCorruptBodiesKeepGoErrorTexts(t *testing.T) {
	good := compressAs("gzip", []byte(`{"streams":[]}`))
	badSum := bytes.Clone(good)
	badSum[len(badSum)-5] ^= 0xff
	bodies := map[string][]byte{"header": []byte("\x1f\x8c nope"), "truncated": good[:len(good)-3], "checksum": badSum, "empty": nil}
	for name, body := range bodies {
		_, err := Decode(request(body, "application/json", "gzip"), 1<<16)
		zr, want := gzip.NewReader(bytes.NewReader(body))
		if want == nil {
			_, want = io.ReadAll(zr)
		}
		if err == nil || want == nil || !strings.Contains(err.Error(), want.Error()) {
			t.Errorf("gzip %s: got %v, want Go's %v", name, err, want)
		}
	}
	deflated := compressAs("deflate", []byte(`{"streams":[]}`))
	for name, body := range map[string][]byte{"garbage": []byte("\xff\xff\xff"), "truncated": deflated[:len(deflated)-2]} {
		_, err := Decode(request(body, "application/json", "deflate"), 1<<16)
		_, want := io.ReadAll(flate.NewReader(bytes.NewReader(body)))
		if err == nil || want == nil || !strings.Contains(err.Error(), want.Error()) {
			t.Errorf("deflate %s: got %v, want Go's %v", name, err, want)
		}
	}
}
