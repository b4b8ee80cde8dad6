package scaleingest

import (
	"net/http"
	"strconv"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
)

// lokiJSONEncoder builds Loki's JSON push bodies, uncompressed:
// {"streams":[{"stream":{labels},"values":[["<ns>","<line>"],…]},…]}.
type lokiJSONEncoder struct {
	d    *scaledata.Dataset
	b    *batch
	body []byte
}

func newLokiJSONEncoder(d *scaledata.Dataset) *lokiJSONEncoder {
	return &lokiJSONEncoder{d: d, b: newBatch(d)}
}

func (e *lokiJSONEncoder) path() string { return "/loki/api/v1/push" }

func (e *lokiJSONEncoder) header(h http.Header) { h.Set("Content-Type", "application/json") }

func (e *lokiJSONEncoder) encode(lo, hi int) ([]byte, int64) {
	e.b.fill(lo, hi)
	e.body = append(e.body[:0], `{"streams":[`...)
	e.b.streams(func(s int, ents []batchEntry) {
		if e.body[len(e.body)-1] == '}' {
			e.body = append(e.body, ',')
		}
		e.body = append(e.body, `{"stream":{`...)
		for j, l := range e.d.Streams()[s].Labels {
			if j > 0 {
				e.body = append(e.body, ',')
			}
			e.body = appendJSONString(e.body, []byte(l.Name))
			e.body = append(e.body, ':')
			e.body = appendJSONString(e.body, []byte(l.Value))
		}
		e.body = append(e.body, `},"values":[`...)
		for j, en := range ents {
			if j > 0 {
				e.body = append(e.body, ',')
			}
			e.body = append(e.body, `["`...)
			e.body = strconv.AppendInt(e.body, en.timeNs, 10)
			e.body = append(e.body, `",`...)
			e.body = appendJSONString(e.body, e.b.line(en))
			e.body = append(e.body, ']')
		}
		e.body = append(e.body, "]}"...)
	})
	return append(e.body, "]}"...), e.b.bytes
}
