// Package ingest turns validated Loki push streams into what vloki writes
// to VictoriaLogs' Loki endpoint (/insert/loki/api/v1/push, message parsing
// disabled): the embedded engine takes the rows directly, a VictoriaLogs
// over the network a Loki protobuf request.
//
// VictoriaLogs cannot store an empty _msg (it substitutes its
// -defaultMsgValue), so an empty line is written with the marker field
// schema.EmptyLineField="1"; the read path turns such rows back into empty lines.
// Every row also carries its line's byte length in schema.LineBytesField.
//
// Structured metadata named like one of its stream's labels is stored as
// name+"_extracted", the name Loki's queries give it (Loki keeps both and
// renames when it reads); when several metadata end up with one name, the
// last one wins, as Loki's label builder sets them in order.
package ingest

import (
	"fmt"
	"strconv"

	"github.com/grafana/loki/pkg/push"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/schema"
)

// EmptyLineField marks a row whose Loki line was empty.
const EmptyLineField = schema.EmptyLineField

// reserved are VictoriaLogs field names that Loki metadata must not take.
var reserved = map[string]bool{"_msg": true, "_time": true, "_stream": true, "_stream_id": true,
	EmptyLineField: true, schema.LineBytesField: true, schema.SeqField: true}

// Stream is one validated stream to write.
type Stream = lokidata.Stream

// Encode builds what backend.PushLoki writes: each stream's entries with
// the fields vloki adds.
func Encode(streams []Stream) ([]backend.PushStream, error) {
	out := make([]backend.PushStream, 0, len(streams))
	for _, s := range streams {
		ps := backend.PushStream{Labels: s.Labels, Entries: make([]push.Entry, 0, len(s.Entries))}
		for _, e := range s.Entries {
			pe, err := encodeEntry(e)
			if err != nil {
				return nil, err
			}
			ps.Entries = append(ps.Entries, pe)
		}
		out = append(out, ps)
	}
	return out, nil
}

func encodeEntry(e lokidata.Entry) (push.Entry, error) {
	pe := push.Entry{Line: e.Line}
	pe.Timestamp = timeFromNs(e.TimestampNs)
	for _, l := range e.StructuredMetadata {
		if reserved[l.Name] {
			return pe, fmt.Errorf("structured metadata name %q is reserved", l.Name)
		}
		pe.StructuredMetadata = append(pe.StructuredMetadata, push.LabelAdapter{Name: l.Name, Value: l.Value})
	}
	if e.Line == "" {
		pe.StructuredMetadata = append(pe.StructuredMetadata, push.LabelAdapter{Name: EmptyLineField, Value: "1"})
	}
	pe.StructuredMetadata = append(pe.StructuredMetadata, push.LabelAdapter{Name: schema.LineBytesField, Value: strconv.Itoa(len(e.Line))})
	if e.Seq != 0 {
		pe.StructuredMetadata = append(pe.StructuredMetadata, push.LabelAdapter{Name: schema.SeqField, Value: strconv.FormatUint(e.Seq, 10)})
	}
	return pe, nil
}
