package lokijson

import (
	"strconv"

	"github.com/vloki/vloki/internal/lokidata"
)

// AppendStreams writes a streams query answer (pkg/util/marshal
// EncodeResult): status, data{resultType, encodingFlags when the request
// carried any, result, stats}, and a trailing newline. With the
// categorize-labels flag every entry carries a third object.
func AppendStreams(b []byte, streams []lokidata.Stream, flags []string, st Stats) []byte {
	categorize := hasFlag(flags, "categorize-labels")
	b = append(b, `{"status":"success","data":{"resultType":"streams"`...)
	if len(flags) > 0 {
		b = append(b, `,"encodingFlags":`...)
		b = appendStringArray(b, flags)
	}
	b = append(b, `,"result":[`...)
	for i := range streams {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStream(b, &streams[i], categorize)
	}
	b = append(b, `],"stats":`...)
	b = st.appendTo(b)
	return append(b, "}}\n"...)
}

func appendStream(b []byte, s *lokidata.Stream, categorize bool) []byte {
	b = append(b, `{"stream":`...)
	b = appendLabelsObject(b, s.Labels)
	b = append(b, `,"values":[`...)
	for i := range s.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEntry(b, &s.Entries[i], categorize)
	}
	return append(b, "]}"...)
}

func appendEntry(b []byte, e *lokidata.Entry, categorize bool) []byte {
	b = append(b, `["`...)
	b = strconv.AppendInt(b, e.TimestampNs, 10)
	b = append(b, `",`...)
	b = appendHTMLString(b, e.Line)
	if categorize {
		b = append(b, ",{"...)
		if len(e.StructuredMetadata) > 0 {
			b = append(b, `"structuredMetadata":`...)
			b = appendLabelsObject(b, e.StructuredMetadata)
		}
		if len(e.Parsed) > 0 {
			if len(e.StructuredMetadata) > 0 {
				b = append(b, ',')
			}
			b = append(b, `"parsed":`...)
			b = appendLabelsObject(b, e.Parsed)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendLabelsObject(b []byte, ls lokidata.Labels) []byte {
	b = append(b, '{')
	for i, l := range ls {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, l.Name)
		b = append(b, ':')
		b = appendString(b, l.Value)
	}
	return append(b, '}')
}

func appendStringArray(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

func hasFlag(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

// AppendTail writes one tail message (pkg/util/marshal EncodeTailResult):
// the streams, then encodingFlags when the request carried any.
func AppendTail(b []byte, streams []lokidata.Stream, flags []string) []byte {
	categorize := hasFlag(flags, "categorize-labels")
	b = append(b, `{"streams":[`...)
	for i := range streams {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStream(b, &streams[i], categorize)
	}
	b = append(b, ']')
	if len(flags) > 0 {
		b = append(b, `,"encodingFlags":`...)
		b = appendStringArray(b, flags)
	}
	return append(b, '}')
}
