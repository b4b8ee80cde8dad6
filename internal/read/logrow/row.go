// Package logrow reads VictoriaLogs rows in Loki's terms: stream labels
// parsed once per query (renamed for data other agents wrote), structured
// metadata, the line, the arrival number; and the small readers of
// VictoriaLogs' values (_time, stats counts) the executors share.
package logrow

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/backend"
	"github.com/vloki/vloki/internal/storage/otheragents"
	"github.com/vloki/vloki/internal/storage/schema"
	"github.com/vloki/vloki/internal/write/push"
)

// Row is one VictoriaLogs row in Loki's terms.
type Row struct {
	Labels      lokidata.Labels // stream labels, sorted
	Key         string          // labels.String(), cached for ordering
	Hash        uint64          // labels.Hash(): Loki's stream fingerprint
	TimestampNs int64
	Seq         uint64 // arrival number among equal timestamps (schema.SeqField); 0: none
	Line        string
	Metadata    lokidata.Labels // structured metadata, sorted
	Parsed      lokidata.Labels // labels parsers extracted, sorted
	Out         string          // the line after the pipeline changed it
	// OutLabels and OutMetadata are what remains after drop/keep.
	OutLabels, OutMetadata lokidata.Labels
	// Foreign marks a row other agents wrote; ParsedAtIngestion one that
	// carries fields besides its line, so parsers have nothing to add.
	Foreign, ParsedAtIngestion bool
}

// Read copies what vloki needs out of a VictoriaLogs row.
func Read(r *backend.Row, streams *StreamCache) (Row, error) {
	var out Row
	stream, err := streams.Get(r.Get("_stream"))
	if err != nil {
		return out, err
	}
	out.Labels, out.Key, out.Hash = stream.Labels, stream.Key, stream.Hash
	if out.TimestampNs, err = ParseTime(r.Get("_time")); err != nil {
		return out, err
	}
	empty, hasMsg := false, false
	for _, f := range r.Fields {
		name := string(f.Name)
		switch {
		case name == "_msg":
			out.Line, hasMsg = string(f.Value), true
		case name == schema.EmptyLineField:
			empty = true
		case name == schema.SeqField:
			out.Seq, _ = strconv.ParseUint(string(f.Value), 10, 64)
		case strings.HasPrefix(name, "_") && IsInternalField(name), schema.IsVlokiField(name):
		case HasLabel(stream.Stored, name):
		default:
			out.Metadata = append(out.Metadata, lokidata.Label{Name: name, Value: string(f.Value)})
		}
	}
	if empty {
		out.Line = ""
	}
	out.Metadata.Sort()
	if f := streams.foreign; f != nil {
		readForeign(f, &out, stream.Stored, !empty && (!hasMsg || out.Line == f.MissingMsg))
	}
	return out, nil
}

// readForeign gives a row other agents wrote Loki's names, a line when it
// has none, and the detected_level Loki would have added.
func readForeign(f *otheragents.Config, row *Row, stored lokidata.Labels, noLine bool) {
	row.Foreign = true
	for _, m := range row.Metadata {
		// detected_level is what Loki itself adds; any other field was
		// parsed out of the line by the agent that stored it.
		row.ParsedAtIngestion = row.ParsedAtIngestion || m.Name != push.DetectedLevelLabel
	}
	if noLine {
		row.Line = otheragents.Line(row.Metadata)
	}
	if lv := f.DetectedLevel(stored, row.Metadata, row.Line); lv != "" {
		row.Metadata = append(row.Metadata, lokidata.Label{Name: push.DetectedLevelLabel, Value: lv})
	}
	row.Metadata = otheragents.Rename(row.Metadata, row.Labels)
}

// lookup returns a stream label or structured metadata value, "" if absent.
func (r *Row) lookup(name string) string {
	if v, ok := r.Labels.Get(name); ok {
		return v
	}
	v, _ := r.Metadata.Get(name)
	return v
}

// IsInternalField reports VictoriaLogs' own fields, which are no metadata.
func IsInternalField(name string) bool {
	switch name {
	case "_time", "_stream", "_stream_id", "_msg":
		return true
	}
	return false
}

// HasLabel reports whether ls holds a label of that name.
func HasLabel(ls lokidata.Labels, name string) bool {
	_, ok := ls.Get(name)
	return ok
}

// MergeLabels adds metadata to stream labels; a stream label wins a clash.
func MergeLabels(stream, extra lokidata.Labels) lokidata.Labels {
	out := make(lokidata.Labels, 0, len(stream)+len(extra))
	out = append(out, stream...)
	for _, l := range extra {
		if _, ok := stream.Get(l.Name); !ok {
			out = append(out, l)
		}
	}
	out.Sort()
	return out
}

// ParseCount reads a VictoriaLogs stats count.
func ParseCount(b []byte) (int64, error) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("VictoriaLogs stats value %q: %w", b, err)
	}
	return n, nil
}

// ParseTime reads VictoriaLogs' RFC3339 _time with nanoseconds.
func ParseTime(b []byte) (int64, error) {
	if ns, ok := parseUTCTime(b); ok {
		return ns, nil
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return 0, fmt.Errorf("VictoriaLogs row has bad _time %q: %w", b, err)
	}
	return t.UnixNano(), nil
}

// parseUTCTime reads the form VictoriaLogs writes,
// YYYY-MM-DDTHH:MM:SS[.fraction]Z, without time.Parse's generality; ok is
// false for anything else.
func parseUTCTime(b []byte) (int64, bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[len(b)-1] != 'Z' {
		return 0, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	sec, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	frac := b[19 : len(b)-1]
	nanos := 0
	if len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return 0, false
		}
		n, ok := digits(frac[1:])
		if !ok {
			return 0, false
		}
		for i := len(frac) - 1; i < 9; i++ {
			n *= 10
		}
		nanos = n
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, time.UTC)
	if t.Day() != day {
		return 0, false // a day the month does not have
	}
	return t.UnixNano(), true
}

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// StreamCache parses each distinct _stream value once per query; for data
// other agents wrote (foreign set) it also gives the labels Loki's names.
type StreamCache struct {
	m       map[string]Stream
	foreign *otheragents.Config
}

// Stream is a parsed _stream value.
type Stream struct {
	Stored lokidata.Labels // as VictoriaLogs holds them
	Labels lokidata.Labels // as Loki names them
	Key    string
	Hash   uint64
}

// NewStreamCache is an empty cache; f is nil for data vloki wrote.
func NewStreamCache(f *otheragents.Config) *StreamCache {
	return &StreamCache{m: map[string]Stream{}, foreign: f}
}

// Get parses raw, once per distinct value.
func (c *StreamCache) Get(raw []byte) (Stream, error) {
	if s, ok := c.m[string(raw)]; ok {
		return s, nil
	}
	ls, err := schema.ParseStream(string(raw))
	if err != nil {
		return Stream{}, err
	}
	s := Stream{Stored: ls, Labels: ls}
	if c.foreign != nil {
		s.Labels = c.foreign.StreamLabels(ls)
	}
	s.Key, s.Hash = s.Labels.String(), s.Labels.Hash()
	c.m[string(raw)] = s
	return s, nil
}
