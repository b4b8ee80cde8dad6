package exec

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/foreign"
	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/push"
)

// logRow is one VictoriaLogs row in Loki's terms.
type logRow struct {
	labels   model.Labels // stream labels, sorted
	key      string       // labels.String(), cached for ordering
	hash     uint64       // labels.Hash(): Loki's stream fingerprint
	ts       int64
	seq      uint64 // arrival number among equal timestamps (backend.SeqField); 0: none
	line     string
	metadata model.Labels // structured metadata, sorted
	parsed   model.Labels // labels parsers extracted, sorted
	out      string       // the line after the pipeline changed it
	// outLabels and outMetadata are what remains after drop/keep.
	outLabels, outMetadata model.Labels
	// foreign marks a row other agents wrote; parsedAtIngestion one that
	// carries fields besides its line, so parsers have nothing to add.
	foreign, parsedAtIngestion bool
}

// toLogRow copies what vloki needs out of a VictoriaLogs row.
func toLogRow(r *backend.Row, streams *streamCache) (logRow, error) {
	var out logRow
	stream, err := streams.get(r.Get("_stream"))
	if err != nil {
		return out, err
	}
	out.labels, out.key, out.hash = stream.labels, stream.key, stream.hash
	if out.ts, err = parseTime(r.Get("_time")); err != nil {
		return out, err
	}
	empty, hasMsg := false, false
	for _, f := range r.Fields {
		name := string(f.Name)
		switch {
		case name == "_msg":
			out.line, hasMsg = string(f.Value), true
		case name == backend.EmptyLineField:
			empty = true
		case name == backend.SeqField:
			out.seq, _ = strconv.ParseUint(string(f.Value), 10, 64)
		case strings.HasPrefix(name, "_") && isInternalField(name), backend.IsVlokiField(name):
		case hasLabel(stream.stored, name):
		default:
			out.metadata = append(out.metadata, model.Label{Name: name, Value: string(f.Value)})
		}
	}
	if empty {
		out.line = ""
	}
	out.metadata.Sort()
	if f := streams.foreign; f != nil {
		readForeign(f, &out, stream.stored, !empty && (!hasMsg || out.line == f.MissingMsg))
	}
	return out, nil
}

// readForeign gives a row other agents wrote Loki's names, a line when it
// has none, and the detected_level Loki would have added.
func readForeign(f *foreign.Config, row *logRow, stored model.Labels, noLine bool) {
	row.foreign = true
	for _, m := range row.metadata {
		// detected_level is what Loki itself adds; any other field was
		// parsed out of the line by the agent that stored it.
		row.parsedAtIngestion = row.parsedAtIngestion || m.Name != push.DetectedLevelLabel
	}
	if noLine {
		row.line = foreign.Line(row.metadata)
	}
	if lv := f.DetectedLevel(stored, row.metadata, row.line); lv != "" {
		row.metadata = append(row.metadata, model.Label{Name: push.DetectedLevelLabel, Value: lv})
	}
	row.metadata = foreign.Rename(row.metadata, row.labels)
}

// lookup returns a stream label or structured metadata value, "" if absent.
func (r *logRow) lookup(name string) string {
	if v, ok := r.labels.Get(name); ok {
		return v
	}
	v, _ := r.metadata.Get(name)
	return v
}

func isInternalField(name string) bool {
	switch name {
	case "_time", "_stream", "_stream_id", "_msg":
		return true
	}
	return false
}

func hasLabel(ls model.Labels, name string) bool {
	_, ok := ls.Get(name)
	return ok
}

// mergeLabels adds metadata to stream labels; a stream label wins a clash.
func mergeLabels(stream, extra model.Labels) model.Labels {
	out := make(model.Labels, 0, len(stream)+len(extra))
	out = append(out, stream...)
	for _, l := range extra {
		if _, ok := stream.Get(l.Name); !ok {
			out = append(out, l)
		}
	}
	out.Sort()
	return out
}

// parseCount reads a VictoriaLogs stats count.
func parseCount(b []byte) (int64, error) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("VictoriaLogs stats value %q: %w", b, err)
	}
	return n, nil
}

// parseTime reads VictoriaLogs' RFC3339 _time with nanoseconds.
func parseTime(b []byte) (int64, error) {
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

// streamCache parses each distinct _stream value once per query; for data
// other agents wrote (foreign set) it also gives the labels Loki's names.
type streamCache struct {
	m       map[string]cachedStream
	foreign *foreign.Config
}

type cachedStream struct {
	stored model.Labels // as VictoriaLogs holds them
	labels model.Labels // as Loki names them
	key    string
	hash   uint64
}

func newStreamCache(f *foreign.Config) *streamCache {
	return &streamCache{m: map[string]cachedStream{}, foreign: f}
}

func (c *streamCache) get(raw []byte) (cachedStream, error) {
	if s, ok := c.m[string(raw)]; ok {
		return s, nil
	}
	ls, err := backend.ParseStream(string(raw))
	if err != nil {
		return cachedStream{}, err
	}
	s := cachedStream{stored: ls, labels: ls}
	if c.foreign != nil {
		s.labels = c.foreign.StreamLabels(ls)
	}
	s.key, s.hash = s.labels.String(), s.labels.Hash()
	c.m[string(raw)] = s
	return s, nil
}
