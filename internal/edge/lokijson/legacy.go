package lokijson

import (
	"slices"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
)

// Loki's legacy API (/api/prom/...) answers through its legacy models:
// a stream is {"labels":"{a=\"b\"}","entries":[{"ts":RFC3339Nano,"line":…}]},
// written by encoding/json (the push package's MarshalJSON methods), so its
// strings follow appendStdString. An entry keeps its parsed labels and
// loses its structured metadata.

// AppendLegacyStreams writes /api/prom/query's answer (pkg/util/marshal/legacy
// WriteQueryResponseJSON) and a trailing newline. Loki encodes a map of
// streams and stats, so it writes them in either order; vloki writes the
// streams first.
func AppendLegacyStreams(b []byte, streams []lokidata.Stream, st Stats) []byte {
	b = append(b, `{"streams":`...)
	b = appendLegacyStreams(b, streams)
	b = append(b, `,"stats":`...)
	b = st.appendTo(b)
	return append(b, "}\n"...)
}

// AppendLegacyTail writes one /api/prom/tail message (gorilla's WriteJSON
// of the legacy TailResponse, newline-terminated). vloki never drops
// entries for a slow client, so dropped_entries is always null.
func AppendLegacyTail(b []byte, streams []lokidata.Stream) []byte {
	b = append(b, `{"streams":`...)
	b = appendLegacyStreams(b, streams)
	return append(b, `,"dropped_entries":null}`+"\n"...)
}

// AppendLegacyLabels writes /api/prom/label's answer: {"values":[…]}, or
// {} when there are none (the field is omitempty), and a newline.
func AppendLegacyLabels(b []byte, values []string) []byte {
	if len(values) == 0 {
		return append(b, "{}\n"...)
	}
	b = append(b, `{"values":[`...)
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendHTMLString(b, v)
	}
	return append(b, "]}\n"...)
}

func appendLegacyStreams(b []byte, streams []lokidata.Stream) []byte {
	b = append(b, '[')
	for i := range streams {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLegacyStream(b, &streams[i])
	}
	return append(b, ']')
}

func appendLegacyStream(b []byte, s *lokidata.Stream) []byte {
	b = append(b, `{"labels":`...)
	b = appendStdString(b, s.Labels.String())
	b = append(b, `,"entries":[`...)
	for i := range s.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLegacyEntry(b, &s.Entries[i])
	}
	return append(b, "]}"...)
}

func appendLegacyEntry(b []byte, e *lokidata.Entry) []byte {
	b = append(b, `{"ts":"`...)
	b = time.Unix(0, e.TimestampNs).UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","line":`...)
	b = appendStdString(b, e.Line)
	if len(e.Parsed) > 0 {
		b = append(b, `,"parsed":`...)
		b = appendStdLabelsMap(b, e.Parsed)
	}
	return append(b, '}')
}

// appendStdLabelsMap writes labels as encoding/json writes the map Loki's
// LabelsAdapter.MarshalJSON builds: keys sorted, the last value of a
// repeated name kept.
func appendStdLabelsMap(b []byte, ls lokidata.Labels) []byte {
	sorted := slices.Clone(ls)
	slices.SortStableFunc(sorted, func(x, y lokidata.Label) int { return strings.Compare(x.Name, y.Name) })
	b = append(b, '{')
	for i, l := range sorted {
		if i+1 < len(sorted) && sorted[i+1].Name == l.Name {
			continue
		}
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		b = appendStdString(b, l.Name)
		b = append(b, ':')
		b = appendStdString(b, l.Value)
	}
	return append(b, '}')
}
