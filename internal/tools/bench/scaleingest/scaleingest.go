// Package scaleingest streams a scaledata dataset into a server under
// test: through Loki's push API as agents send it (snappy-compressed
// protobuf) or through VictoriaLogs' own /insert/jsonline, in batches of
// consecutive lines from several concurrent pushers, so only the batches
// in flight are ever in memory.
package scaleingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
)

// Format is how a sink takes lines.
type Format int

const (
	// LokiProto is Loki's /loki/api/v1/push with a snappy-compressed
	// protobuf PushRequest.
	LokiProto Format = iota
	// JSONLine is VictoriaLogs' /insert/jsonline: one JSON row a line, the
	// labels as stream fields, the line in _msg.
	JSONLine
	// LokiJSON is Loki's /loki/api/v1/push with an uncompressed JSON body.
	LokiJSON
	// OTLP is /otlp/v1/logs: gzip-compressed protobuf, a stream a resource
	// (see otlpEncoder for how the labels map).
	OTLP
)

// Via names a format as reports show it.
func (f Format) Via() string {
	switch f {
	case JSONLine:
		return "VictoriaLogs jsonline"
	case LokiJSON:
		return "Loki push, JSON"
	case OTLP:
		return "OTLP/HTTP, protobuf+gzip"
	}
	return "Loki push, protobuf+snappy"
}

// Selector is the LogQL stream selector of every line pushed in format f.
func (f Format) Selector() string {
	if f == OTLP {
		return OTLPSelector
	}
	return `{` + scaledata.LabelAgent + `="` + scaledata.Agent + `"}`
}

// ParseFormat reads a -via flag: proto, json or otlp.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "proto":
		return LokiProto, nil
	case "json":
		return LokiJSON, nil
	case "otlp":
		return OTLP, nil
	}
	return 0, fmt.Errorf("unknown push format %q: want proto, json or otlp", s)
}

// Sink is a server that takes the lines.
type Sink struct {
	URL    string
	Header http.Header // tenant headers, sent with every push
	Format Format
	// VictoriaLogs sends Format to VictoriaLogs' own endpoint for it
	// rather than to the Loki API's: Loki's push to
	// /insert/loki/api/v1/push with message parsing off (as vloki writes
	// to an external VictoriaLogs), OTLP to /insert/opentelemetry/v1/logs.
	VictoriaLogs bool
}

// Via names how s takes lines, as reports show it.
func (s Sink) Via() string {
	if s.VictoriaLogs && s.Format != JSONLine {
		return "VictoriaLogs' own endpoint, " + s.Format.Via()
	}
	return s.Format.Via()
}

// path is where s takes a body built by enc.
func (s Sink) path(enc encoder) string {
	if !s.VictoriaLogs {
		return enc.path()
	}
	switch s.Format {
	case LokiProto, LokiJSON:
		return "/insert/loki/api/v1/push?disable_message_parsing=1"
	case OTLP:
		return "/insert/opentelemetry/v1/logs"
	}
	return enc.path()
}

// Options tune the pushing.
type Options struct {
	// Pushers send batches at once (default 4).
	Pushers int
	// BatchLines is the lines of one push (default 1,000: about 0.8 MB of
	// lines, near an agent's 1 MiB batch).
	BatchLines int
	// Pushed, when set, counts the lines acknowledged so far.
	Pushed *atomic.Int64
}

// Result is what a push of the whole dataset did.
type Result struct {
	Lines     int
	LineBytes int64         // bytes of the lines themselves
	WireBytes int64         // bytes of the request bodies sent
	Elapsed   time.Duration // from the first push to the last answer
}

// LinesPerSecond is the ingestion rate.
func (r Result) LinesPerSecond() float64 { return float64(r.Lines) / max(r.Elapsed.Seconds(), 1e-9) }

// Push sends every line of d to s and returns when all are acknowledged.
func Push(ctx context.Context, d *scaledata.Dataset, s Sink, o Options) (Result, error) {
	o = o.withDefaults()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Pushers}, Timeout: 5 * time.Minute}
	batches := (d.Lines() + o.BatchLines - 1) / o.BatchLines
	var next atomic.Int64
	var lineBytes, wireBytes atomic.Int64
	began := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	for range o.Pushers {
		enc := newEncoder(d, s.Format)
		g.Go(func() error {
			for b := int(next.Add(1) - 1); b < batches; b = int(next.Add(1) - 1) {
				lo, hi := b*o.BatchLines, min((b+1)*o.BatchLines, d.Lines())
				body, lines := enc.encode(lo, hi)
				if err := post(gctx, client, s, enc, body); err != nil {
					return fmt.Errorf("lines %d-%d: %w", lo, hi, err)
				}
				lineBytes.Add(lines)
				wireBytes.Add(int64(len(body)))
				if o.Pushed != nil {
					o.Pushed.Add(int64(hi - lo))
				}
			}
			return nil
		})
	}
	err := g.Wait()
	return Result{Lines: d.Lines(), LineBytes: lineBytes.Load(), WireBytes: wireBytes.Load(), Elapsed: time.Since(began)}, err
}

func (o Options) withDefaults() Options {
	if o.Pushers <= 0 {
		o.Pushers = 4
	}
	if o.BatchLines <= 0 {
		o.BatchLines = 1000
	}
	return o
}

// encoder turns a range of lines into one request body.
type encoder interface {
	// encode returns the body for lines [lo, hi) and their line bytes;
	// the body is valid until the next call.
	encode(lo, hi int) (body []byte, lineBytes int64)
	path() string
	header(h http.Header)
}

func newEncoder(d *scaledata.Dataset, f Format) encoder {
	switch f {
	case JSONLine:
		return newJSONEncoder(d)
	case LokiJSON:
		return newLokiJSONEncoder(d)
	case OTLP:
		return newOTLPEncoder(d)
	}
	return newProtoEncoder(d)
}

// post sends one body, trying again while the server is busy or failing
// (429, 5xx, transport errors), as agents do.
func post(ctx context.Context, c *http.Client, s Sink, enc encoder, body []byte) error {
	var err error
	for attempt := range 6 {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt) * 500 * time.Millisecond):
			}
		}
		var retry bool
		if retry, err = postOnce(ctx, c, s, enc, body); err == nil || !retry {
			return err
		}
	}
	return err
}

func postOnce(ctx context.Context, c *http.Client, s Sink, enc encoder, body []byte) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+s.path(enc), bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	for k, v := range s.Header {
		req.Header[k] = v
	}
	enc.header(req.Header)
	resp, err := c.Do(req)
	if err != nil {
		return ctx.Err() == nil, err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 == 2 {
		return false, nil
	}
	err = fmt.Errorf("%s answered %d: %s", s.path(enc), resp.StatusCode, bytes.TrimSpace(msg))
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500, err
}
