package scaleingest

import (
	"net/http"
	"time"

	"github.com/grafana/loki/pkg/push"
	"github.com/klauspost/compress/snappy"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
)

// protoEncoder builds Loki push requests: the batch's lines grouped by
// stream, each stream's entries in time order.
type protoEncoder struct {
	d      *scaledata.Dataset
	b      *batch
	req    push.PushRequest
	raw    []byte
	packed []byte
}

func newProtoEncoder(d *scaledata.Dataset) *protoEncoder {
	return &protoEncoder{d: d, b: newBatch(d)}
}

func (e *protoEncoder) path() string { return "/loki/api/v1/push" }

func (e *protoEncoder) header(h http.Header) { h.Set("Content-Type", "application/x-protobuf") }

func (e *protoEncoder) encode(lo, hi int) ([]byte, int64) {
	e.b.fill(lo, hi)
	e.req.Streams = e.req.Streams[:0]
	e.b.streams(func(s int, ents []batchEntry) {
		st := push.Stream{Labels: e.d.Streams()[s].Key, Entries: make([]push.Entry, 0, len(ents))}
		for _, en := range ents {
			st.Entries = append(st.Entries, push.Entry{Timestamp: time.Unix(0, en.timeNs), Line: string(e.b.line(en))})
		}
		e.req.Streams = append(e.req.Streams, st)
	})
	size := e.req.Size()
	if cap(e.raw) < size {
		e.raw = make([]byte, size)
	}
	e.raw = e.raw[:size]
	if _, err := e.req.MarshalToSizedBuffer(e.raw); err != nil {
		panic(err) // a sized buffer always fits
	}
	e.packed = snappy.Encode(e.packed[:cap(e.packed)], e.raw)
	return e.packed, e.b.bytes
}
