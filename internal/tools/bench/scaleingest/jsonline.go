package scaleingest

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/tools/bench/scaledata"
)

// jsonEncoder builds VictoriaLogs jsonline bodies: per line
// {"_time":…,"_msg":<line>,<label>:<value>…}.
type jsonEncoder struct {
	d     *scaledata.Dataset
	gen   *scaledata.Gen
	line  []byte
	body  []byte
	query string
}

func newJSONEncoder(d *scaledata.Dataset) *jsonEncoder {
	q := url.Values{"_stream_fields": {strings.Join(d.LabelNames(), ",")}, "_msg_field": {"_msg"}, "_time_field": {"_time"}}
	return &jsonEncoder{d: d, gen: d.Gen(), query: q.Encode()}
}

func (e *jsonEncoder) path() string { return "/insert/jsonline?" + e.query }

func (e *jsonEncoder) header(h http.Header) { h.Set("Content-Type", "application/stream+json") }

func (e *jsonEncoder) encode(lo, hi int) ([]byte, int64) {
	e.body = e.body[:0]
	var n int64
	for i := lo; i < hi; i++ {
		var row scaledata.Row
		row, e.line = e.gen.Row(i, e.line[:0])
		n += int64(len(e.line))
		e.body = append(e.body, `{"_time":"`...)
		e.body = time.Unix(0, row.TimeNs).UTC().AppendFormat(e.body, time.RFC3339Nano)
		e.body = append(e.body, `","_msg":`...)
		e.body = appendJSONString(e.body, e.line)
		for _, l := range e.d.Streams()[row.Stream].Labels {
			e.body = append(e.body, ',')
			e.body = appendJSONString(e.body, []byte(l.Name))
			e.body = append(e.body, ':')
			e.body = appendJSONString(e.body, []byte(l.Value))
		}
		e.body = append(e.body, "}\n"...)
	}
	return e.body, n
}

// appendJSONString appends s as a JSON string. The generated lines are
// ASCII, so only quotes, backslashes and control bytes need escaping.
func appendJSONString(b, s []byte) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
