package querier

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/vloki/vloki/internal/edge/loghttp"
	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/frontend"
	"github.com/vloki/vloki/internal/read/logs"
	"github.com/vloki/vloki/internal/read/stages"
)

// DetectedField is one field of Drilldown's field list, in Loki's JSON
// form.
type DetectedField struct {
	Label       string   `json:"label"`
	Type        string   `json:"type"`
	Cardinality int      `json:"cardinality"`
	Parsers     []string `json:"parsers"`
	JSONPath    []string `json:"jsonPath,omitempty"`
	values      map[string]bool
}

// DetectedFields is Drilldown's field list: Loki reads the newest
// line_limit entries of the query sel and reports their structured
// metadata and the fields json (or else logfmt) finds in the lines, with a
// type guessed from the values and the number of distinct values; at most
// req.Limit fields, sorted by name.
func (q *Querier) DetectedFields(ctx context.Context, t tenant.ID, req *loghttp.DetectedFieldsQuery, sel logql.LogSelectorExpr, st frontend.ReadState) ([]*DetectedField, error) {
	streams, err := q.detectedEntries(ctx, t, req, sel, st)
	if err != nil {
		return nil, err
	}
	fields := detectedFields{limit: req.Limit, byName: map[string]*DetectedField{}}
	for _, st := range streams {
		key := st.Labels.String()
		for _, e := range st.Entries {
			fields.addEntry(e, q.detected.parse(key, st.Labels, e.Line))
		}
	}
	out := make([]*DetectedField, 0, len(fields.byName))
	for _, f := range fields.byName {
		f.Cardinality = len(f.values)
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out, nil
}

// detectedFields collects the fields of the entries read, up to limit.
type detectedFields struct {
	limit  int
	byName map[string]*DetectedField
}

// add notes a value of the field name, found by parsers; nil when the
// field is new and the limit is reached.
func (d *detectedFields) add(name, value string, parsers []string) *DetectedField {
	f := d.byName[name]
	if f == nil {
		if len(d.byName) >= d.limit {
			return nil
		}
		f = &DetectedField{Label: name, Parsers: parsers, values: map[string]bool{}}
		d.byName[name] = f
	}
	f.values[value] = true
	return f
}

// addEntry notes an entry's structured metadata and the fields its line
// parses into (parsed).
func (d *detectedFields) addEntry(e lokidata.Entry, parsed stages.DetectedParse) {
	typed := map[string]bool{}
	note := func(f *DetectedField, value string) {
		// Loki types a field by the first value of each entry; the
		// last entry read decides.
		if f != nil && !typed[f.Label] {
			f.Type, typed[f.Label] = fieldType(value), true
		}
	}
	for _, l := range e.StructuredMetadata {
		note(d.add(l.Name, l.Value, nil), l.Value)
	}
	typed = map[string]bool{}
	for _, l := range append(append(lokidata.Labels{}, e.Parsed...), parsed.Fields...) {
		if l.Name == "__error__" || l.Name == "__error_details__" || l.Name == "__preserve_error__" {
			continue
		}
		f := d.add(l.Name, l.Value, []string{parsed.Parser})
		if f == nil {
			continue
		}
		if !containsString(f.Parsers, parsed.Parser) {
			f.Parsers = append(f.Parsers, parsed.Parser)
		}
		if parsed.Parser == "json" {
			f.JSONPath = parsed.Paths[l.Name]
		}
		note(f, l.Value)
	}
}

// DetectedFieldValues are the distinct values of the field name in the
// newest line_limit entries of the query sel, at most req.Limit of them,
// sorted; byte sizes are written as humanize does, ready to paste into a
// query.
func (q *Querier) DetectedFieldValues(ctx context.Context, t tenant.ID, req *loghttp.DetectedFieldsQuery, sel logql.LogSelectorExpr, name string, st frontend.ReadState) ([]string, error) {
	streams, err := q.detectedEntries(ctx, t, req, sel, st)
	if err != nil {
		return nil, err
	}
	values := map[string]bool{}
	for _, st := range streams {
		key := st.Labels.String()
		for _, e := range st.Entries {
			if len(values) >= req.Limit {
				break
			}
			if v, ok := e.StructuredMetadata.Get(name); ok {
				values[v] = true
			}
			parsed := q.detected.parse(key, st.Labels, e.Line)
			for _, set := range []lokidata.Labels{e.Parsed, parsed.Fields} {
				if v, ok := set.Get(name); ok {
					values[normalizeBytes(v)] = true
				}
			}
		}
	}
	out := make([]string, 0, len(values))
	for v := range values {
		out = append(out, v)
	}
	sort.Strings(out)
	return out, nil
}

// detectedEntries runs the log query sel backward for line_limit entries,
// structured metadata and parsed labels kept apart, through the frontend
// under the request's read state (so windows that move reuse what earlier
// ones read).
func (q *Querier) detectedEntries(ctx context.Context, t tenant.ID, req *loghttp.DetectedFieldsQuery, sel logql.LogSelectorExpr, st frontend.ReadState) ([]lokidata.Stream, error) {
	res, err := q.frontend.Range(ctx, t, frontend.RangeRequest{
		Expr: sel, Text: "detected\x00" + req.Query, Start: req.Start, End: req.End, Limit: req.LineLimit, Direction: logs.Backward,
		Categorize: true, State: st,
	})
	if err != nil {
		return nil, err
	}
	return res.Streams.Streams, nil
}

// fieldType guesses a value's type in Loki's order.
func fieldType(v string) string {
	if v == "" || !mayBeTyped(v[0]) {
		return "string" // every parser of parsedType fails (and allocates its error)
	}
	return parsedType(v)
}

// parsedType is the first of Loki's parsers to accept v.
func parsedType(v string) string {
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return "int"
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return "float"
	}
	if _, err := strconv.ParseBool(v); err == nil {
		return "boolean"
	}
	if _, err := time.ParseDuration(v); err == nil {
		return "duration"
	}
	if _, err := humanize.ParseBytes(v); err == nil {
		return "bytes"
	}
	return "string"
}

var bytesSuffixes = []string{"b", "kib", "kb", "mib", "mb", "gib", "gb", "tib", "tb", "pib", "pb", "eib", "eb",
	"ki", "k", "mi", "m", "gi", "g", "ti", "t", "pi", "p", "ei", "e"}

// mayBeTyped: c can start a value one of fieldType's parsers accepts: a
// sign, digit, '.' or ',' (numbers, durations, humanized bytes), or the
// first letter of inf, nan (floats), true or false.
func mayBeTyped(c byte) bool {
	switch c {
	case '+', '-', '.', ',', 'i', 'I', 'n', 'N', 't', 'T', 'f', 'F':
		return true
	}
	return c >= '0' && c <= '9'
}

// normalizeBytes writes a byte size with a unit as humanize does (1.5 kB
// becomes 1.5kB); other values stay.
func normalizeBytes(v string) string {
	b, err := humanize.ParseBytes(v)
	if err != nil {
		return v
	}
	lower := strings.ToLower(v)
	for _, suf := range bytesSuffixes {
		if strings.HasSuffix(lower, suf) {
			return strings.Replace(humanize.Bytes(b), " ", "", 1)
		}
	}
	return v
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
