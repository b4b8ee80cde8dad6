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
	gen    *scaledata.Gen
	line   []byte
	byID   map[int]int // stream index → place in req.Streams
	req    push.PushRequest
	raw    []byte
	packed []byte
}

func newProtoEncoder(d *scaledata.Dataset) *protoEncoder {
	return &protoEncoder{d: d, gen: d.Gen(), byID: map[int]int{}}
}

func (e *protoEncoder) path() string { return "/loki/api/v1/push" }

func (e *protoEncoder) header(h http.Header) { h.Set("Content-Type", "application/x-protobuf") }

func (e *protoEncoder) encode(lo, hi int) ([]byte, int64) {
	clear(e.byID)
	e.req.Streams = e.req.Streams[:0]
	var n int64
	for i := lo; i < hi; i++ {
		var row scaledata.Row
		row, e.line = e.gen.Row(i, e.line[:0])
		n += int64(len(e.line))
		k, ok := e.byID[row.Stream]
		if !ok {
			k = len(e.req.Streams)
			e.byID[row.Stream] = k
			e.req.Streams = append(e.req.Streams, push.Stream{Labels: e.d.Streams()[row.Stream].Key})
		}
		st := &e.req.Streams[k]
		st.Entries = append(st.Entries, push.Entry{Timestamp: time.Unix(0, row.TimeNs), Line: string(e.line)})
	}
	size := e.req.Size()
	if cap(e.raw) < size {
		e.raw = make([]byte, size)
	}
	e.raw = e.raw[:size]
	if _, err := e.req.MarshalToSizedBuffer(e.raw); err != nil {
		panic(err) // a sized buffer always fits
	}
	e.packed = snappy.Encode(e.packed[:cap(e.packed)], e.raw)
	return e.packed, n
}
