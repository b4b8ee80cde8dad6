package scaleingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/grafana/loki/pkg/push"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
)

// received collects what a fake server was sent: every line once, under
// the labels its record names.
type received struct {
	mu     sync.Mutex
	traces map[string]string // trace_id → labels
	posts  int
}

func (r *received) add(t *testing.T, labels string, line []byte) {
	var rec struct {
		TraceID string `json:"trace_id"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		t.Errorf("line is not JSON: %v", err)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.traces[rec.TraceID]; dup {
		t.Errorf("trace_id %s sent twice", rec.TraceID)
	}
	r.traces[rec.TraceID] = labels
}

func pushAll(t *testing.T, f Format, handle func(*received, []byte, *http.Request)) (*received, Result) {
	t.Helper()
	got := &received{traces: map[string]string{}}
	var failed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !failed.Swap(true) { // the first push is refused once: it is sent again
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		got.mu.Lock()
		got.posts++
		got.mu.Unlock()
		handle(got, body, r)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	d := scaledata.New(scaledata.Config{Now: time.Unix(1_800_000_000, 0), Days: 30, Lines: 2_500, Seed: 3})
	var pushed atomic.Int64
	res, err := Push(context.Background(), d, Sink{URL: srv.URL, Format: f}, Options{Pushers: 3, BatchLines: 300, Pushed: &pushed})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.traces) != d.Lines() || pushed.Load() != int64(d.Lines()) || got.posts != 9 {
		t.Fatalf("%d lines arrived in %d posts, %d counted, want %d in 9", len(got.traces), got.posts, pushed.Load(), d.Lines())
	}
	return got, res
}

func TestPushLokiProto(t *testing.T) {
	_, res := pushAll(t, LokiProto, func(got *received, body []byte, r *http.Request) {
		if r.URL.Path != "/loki/api/v1/push" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("pushed to %s as %s", r.URL.Path, r.Header.Get("Content-Type"))
		}
		raw, err := snappy.Decode(nil, body)
		var req push.PushRequest
		if err == nil {
			err = req.Unmarshal(raw)
		}
		if err != nil {
			t.Error(err)
			return
		}
		for _, s := range req.Streams {
			for _, e := range s.Entries {
				got.add(t, s.Labels, []byte(e.Line))
			}
		}
	})
	if res.LineBytes < 2_500*700 || res.WireBytes == 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestPushJSONLine(t *testing.T) {
	pushAll(t, JSONLine, func(got *received, body []byte, r *http.Request) {
		if r.URL.Path != "/insert/jsonline" || r.URL.Query().Get("_stream_fields") != "agent,cloud_region,input_type,level" {
			t.Errorf("pushed to %s", r.URL)
		}
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var row map[string]string
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
				t.Error(err)
				return
			}
			if _, err := time.Parse(time.RFC3339Nano, row["_time"]); err != nil || row["agent"] != "benchmark" {
				t.Errorf("row %v", row)
			}
			got.add(t, row["cloud_region"]+row["level"], []byte(row["_msg"]))
		}
	})
}

func TestPushLokiJSON(t *testing.T) {
	pushAll(t, LokiJSON, func(got *received, body []byte, r *http.Request) {
		if r.URL.Path != "/loki/api/v1/push" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("pushed to %s as %s", r.URL.Path, r.Header.Get("Content-Type"))
		}
		var req struct {
			Streams []struct {
				Stream map[string]string `json:"stream"`
				Values [][2]string       `json:"values"`
			} `json:"streams"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Error(err)
			return
		}
		for _, s := range req.Streams {
			if s.Stream["agent"] != "benchmark" || len(s.Stream) != 4 {
				t.Errorf("stream %v", s.Stream)
			}
			last := int64(0)
			for _, v := range s.Values {
				ns, err := strconv.ParseInt(v[0], 10, 64)
				if err != nil || ns < last {
					t.Errorf("timestamp %q after %d", v[0], last)
				}
				last = ns
				got.add(t, s.Stream["cloud_region"]+s.Stream["level"], []byte(v[1]))
			}
		}
	})
}

func TestPushOTLP(t *testing.T) {
	pushAll(t, OTLP, func(got *received, body []byte, r *http.Request) {
		if r.URL.Path != "/otlp/v1/logs" || r.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("pushed to %s as %s", r.URL.Path, r.Header.Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		raw, _ := io.ReadAll(zr)
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalProto(raw); err != nil {
			t.Error(err)
			return
		}
		rls := req.Logs().ResourceLogs()
		for i := range rls.Len() {
			res := rls.At(i).Resource().Attributes()
			svc, _ := res.Get("service.name")
			region, _ := res.Get("cloud.region")
			if svc.Str() != "benchmark" || region.Str() == "" {
				t.Errorf("resource %v", res.AsRaw())
			}
			recs := rls.At(i).ScopeLogs().At(0).LogRecords()
			for j := range recs.Len() {
				lr := recs.At(j)
				in, _ := lr.Attributes().Get("input_type")
				if lr.SeverityText() == "" || in.Str() == "" || lr.Timestamp() == 0 {
					t.Errorf("record %v %v", lr.SeverityText(), lr.Attributes().AsRaw())
				}
				got.add(t, region.Str()+lr.SeverityText(), []byte(lr.Body().Str()))
			}
		}
	})
}

func TestParseFormat(t *testing.T) {
	for s, want := range map[string]Format{"proto": LokiProto, "json": LokiJSON, "otlp": OTLP} {
		if f, err := ParseFormat(s); err != nil || f != want {
			t.Errorf("%s: %v %v", s, f, err)
		}
	}
	if _, err := ParseFormat("jsonline"); err == nil {
		t.Error("jsonline accepted")
	}
}
