package lokijson

import (
	"slices"
	"strconv"

	"github.com/vloki/vloki/internal/lokidata"
)

// AppendStreams writes a streams query answer (pkg/util/marshal
// EncodeResult): status, data{resultType, encodingFlags when the request
// carried any, result, stats}, and a trailing newline. With the
// categorize-labels flag every entry carries a third object.
func AppendStreams(b []byte, streams []lokidata.Stream, flags []string, st Stats) []byte {
	categorize := hasFlag(flags, "categorize-labels")
	// One allocation for the answer: growing by doubling copied it over and
	// over (a thousand 1 KB lines allocated several times their size).
	b = slices.Grow(b, streamsSizeHint(streams))
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

// streamsSizeHint estimates the answer's bytes: each line with an eighth
// for escapes, each entry's timestamp and punctuation and metadata, each
// stream's labels, and the stats object.
func streamsSizeHint(streams []lokidata.Stream) int {
	n := 2048
	for i := range streams {
		s := &streams[i]
		n += 32 + labelsSize(s.Labels)
		for j := range s.Entries {
			e := &s.Entries[j]
			n += 32 + len(e.Line) + len(e.Line)/8 + labelsSize(e.StructuredMetadata) + labelsSize(e.Parsed)
		}
	}
	return n
}

func labelsSize(ls lokidata.Labels) int {
	n := 0
	for _, l := range ls {
		n += 6 + len(l.Name) + len(l.Value)
	}
	return n
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
