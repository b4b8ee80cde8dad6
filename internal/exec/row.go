package exec

import (
	"fmt"
	"strings"
	"time"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/model"
)

// logRow is one VictoriaLogs row in Loki's terms.
type logRow struct {
	labels   model.Labels // stream labels, sorted
	key      string       // labels.String(), cached for ordering
	hash     uint64       // labels.Hash(): Loki's stream fingerprint
	ts       int64
	line     string
	metadata model.Labels // structured metadata, sorted
	parsed   model.Labels // labels parsers extracted, sorted
	out      string       // the line after the pipeline changed it
	// outLabels and outMetadata are what remains after drop/keep.
	outLabels, outMetadata model.Labels
}

// toLogRow copies what vloki needs out of a VictoriaLogs row.
func toLogRow(r *backend.Row, streams *streamCache) (logRow, error) {
	var out logRow
	var err error
	if out.labels, out.key, out.hash, err = streams.get(r.Get("_stream")); err != nil {
		return out, err
	}
	if out.ts, err = parseTime(r.Get("_time")); err != nil {
		return out, err
	}
	empty := false
	for _, f := range r.Fields {
		name := string(f.Name)
		switch {
		case name == "_msg":
			out.line = string(f.Value)
		case name == backend.EmptyLineField:
			empty = true
		case strings.HasPrefix(name, "_") && isInternalField(name):
		case hasLabel(out.labels, name):
		default:
			out.metadata = append(out.metadata, model.Label{Name: name, Value: string(f.Value)})
		}
	}
	if empty {
		out.line = ""
	}
	out.metadata.Sort()
	return out, nil
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

// parseTime reads VictoriaLogs' RFC3339 _time with nanoseconds.
func parseTime(b []byte) (int64, error) {
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return 0, fmt.Errorf("VictoriaLogs row has bad _time %q: %w", b, err)
	}
	return t.UnixNano(), nil
}

// streamCache parses each distinct _stream value once per query.
type streamCache struct {
	m map[string]cachedStream
}

type cachedStream struct {
	labels model.Labels
	key    string
	hash   uint64
}

func newStreamCache() *streamCache { return &streamCache{m: map[string]cachedStream{}} }

func (c *streamCache) get(raw []byte) (model.Labels, string, uint64, error) {
	if s, ok := c.m[string(raw)]; ok {
		return s.labels, s.key, s.hash, nil
	}
	ls, err := backend.ParseStream(string(raw))
	if err != nil {
		return nil, "", 0, err
	}
	s := cachedStream{labels: ls, key: ls.String(), hash: ls.Hash()}
	c.m[string(raw)] = s
	return s.labels, s.key, s.hash, nil
}
