package push

import (
	"strconv"
	"time"

	"github.com/valyala/fastjson"

	"github.com/vloki/vloki/internal/lokidata"
)

// decodeJSON reads Loki's v1 JSON push:
// {"streams":[{"stream":{...},"values":[["<ns>","line",{metadata}]]}]}.
func decodeJSON(data []byte) (*Request, error) {
	v, err := parseJSONBody(data)
	if err != nil {
		return nil, err
	}
	req := &Request{}
	for _, sv := range v.GetArray("streams") {
		if sv.Type() == fastjson.TypeNull {
			continue
		}
		s, err := decodeJSONStream(sv)
		if err != nil {
			return nil, err
		}
		req.Streams = append(req.Streams, s)
	}
	return req, nil
}

func decodeJSONStream(sv *fastjson.Value) (Stream, error) {
	var s Stream
	if lv := sv.Get("stream"); lv != nil && lv.Type() != fastjson.TypeNull {
		obj, err := lv.Object()
		if err != nil {
			return s, badRequest("stream: %s", err)
		}
		var verr error
		obj.Visit(func(k []byte, v *fastjson.Value) {
			val, err := v.StringBytes()
			if err != nil && verr == nil {
				verr = badRequest("label %q: value is not a string", k)
			}
			s.Labels = append(s.Labels, lokidata.Label{Name: string(k), Value: string(val)})
		})
		if verr != nil {
			return s, verr
		}
	}
	s.Labels.Sort()
	for _, ev := range sv.GetArray("values") {
		if ev.Type() == fastjson.TypeNull {
			continue
		}
		e, err := decodeJSONEntry(ev)
		if err != nil {
			return s, err
		}
		s.Entries = append(s.Entries, e)
	}
	return s, nil
}

func decodeJSONEntry(ev *fastjson.Value) (lokidata.Entry, error) {
	var e lokidata.Entry
	arr, err := ev.Array()
	if err != nil || len(arr) < 2 {
		return e, badRequest("entry must be an array of timestamp, line and optional structured metadata")
	}
	tsb, err := arr[0].StringBytes()
	if err != nil {
		return e, badRequest("timestamp must be a string of Unix nanoseconds")
	}
	ts, err := strconv.ParseInt(string(tsb), 10, 64)
	if err != nil {
		return e, badRequest("%s", err)
	}
	line, err := arr[1].StringBytes()
	if err != nil {
		return e, badRequest("line must be a string")
	}
	e.TimestampNs, e.Line = ts, string(line)
	if len(arr) > 2 && arr[2].Type() != fastjson.TypeNull {
		if e.StructuredMetadata, err = decodeMetadata(arr[2]); err != nil {
			return e, err
		}
	}
	return e, nil
}

func decodeMetadata(v *fastjson.Value) (lokidata.Labels, error) {
	obj, err := v.Object()
	if err != nil {
		return nil, badRequest("structured metadata must be an object of strings")
	}
	var out lokidata.Labels
	var verr error
	obj.Visit(func(k []byte, v *fastjson.Value) {
		val, err := v.StringBytes()
		if err != nil && verr == nil {
			verr = badRequest("structured metadata %q: value is not a string", k)
		}
		out = append(out, lokidata.Label{Name: string(k), Value: string(val)})
	})
	return out, verr
}

// decodeLegacyJSON reads /api/prom/push's JSON:
// {"streams":[{"labels":"{a=\"b\"}","entries":[{"ts":"<RFC3339Nano>","line":"..."}]}]}.
func decodeLegacyJSON(data []byte) (*Request, error) {
	v, err := parseJSONBody(data)
	if err != nil {
		return nil, err
	}
	req := &Request{}
	for _, sv := range v.GetArray("streams") {
		ls, err := parseLabels(string(sv.GetStringBytes("labels")))
		if err != nil {
			return nil, err
		}
		s := Stream{Labels: ls}
		for _, ev := range sv.GetArray("entries") {
			ts, err := time.Parse(time.RFC3339Nano, string(ev.GetStringBytes("ts")))
			if err != nil {
				return nil, badRequest("%s", err)
			}
			s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: ts.UnixNano(), Line: string(ev.GetStringBytes("line"))})
		}
		req.Streams = append(req.Streams, s)
	}
	return req, nil
}

// parseJSONBody parses a non-empty JSON body.
func parseJSONBody(data []byte) (*fastjson.Value, error) {
	data, err := trimmed(data)
	if err != nil {
		return nil, badRequest("%s", err)
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(data)
	if err != nil {
		return nil, badRequest("%s", err)
	}
	return v, nil
}
