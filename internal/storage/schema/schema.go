// Package schema is how vloki stores Loki's data in VictoriaLogs: the
// fields it writes for itself beside an entry (never a label or metadata)
// and the stored form of a stream's labels.
package schema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lokidata"
)

// EmptyLineField marks a row whose Loki line was empty: VictoriaLogs cannot
// store an empty _msg. The name is not a valid Loki label name, so it cannot
// collide with user metadata.
const EmptyLineField = "vloki.empty_line"

// LineBytesField holds the byte length of the row's Loki line, written
// with every row vloki stores: volumes, index stats and bytes_over_time sum
// this small numeric column instead of decompressing every _msg (about 8×
// faster). Rows written without it (other agents, older vloki) fall back to
// the length of _msg.
const LineBytesField = "vloki.line_bytes"

// SeqField numbers, in arrival order, an entry that may share its stream
// and timestamp with an entry written before it (a burst of one
// timestamp, a late or repeated timestamp): Loki returns such entries in
// the order they were pushed (reversed when reading backward), which
// VictoriaLogs does not keep. Entries newer than everything their stream
// held are written without it and sort first among equals.
const SeqField = "vloki.seq"

// LineBytesPipe sums line bytes from LineBytesField, falling back to the
// length of _msg on rows without it.
var LineBytesPipe = logsql.LineBytes{Lengths: LineBytesField, Exclude: EmptyLineField}

// IsVlokiField reports a field vloki writes for itself, never a label or
// structured metadata of the entry.
func IsVlokiField(name string) bool {
	return name == EmptyLineField || name == LineBytesField || name == SeqField
}

// ParseStream reads VictoriaLogs' _stream value, {a="b",c="d"} with
// Go-quoted values, into sorted labels.
func ParseStream(s string) (lokidata.Labels, error) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, fmt.Errorf("bad _stream %q", s)
	}
	body := s[1 : len(s)-1]
	var ls lokidata.Labels
	for body != "" {
		eq := strings.IndexByte(body, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("bad _stream %q", s)
		}
		name := body[:eq]
		q, err := strconv.QuotedPrefix(body[eq+1:])
		if err != nil {
			return nil, fmt.Errorf("bad _stream %q: %w", s, err)
		}
		v, _ := strconv.Unquote(q)
		ls = append(ls, lokidata.Label{Name: name, Value: v})
		body = strings.TrimPrefix(body[eq+1+len(q):], ",")
	}
	ls.Sort()
	return ls, nil
}
