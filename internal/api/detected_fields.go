package api

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/exec"
	"github.com/vloki/vloki/internal/frontend"
	"github.com/vloki/vloki/internal/model"
)

// detectedField is one field of the answer, in Loki's JSON form.
type detectedField struct {
	Label       string   `json:"label"`
	Type        string   `json:"type"`
	Cardinality int      `json:"cardinality"`
	Parsers     []string `json:"parsers"`
	JSONPath    []string `json:"jsonPath,omitempty"`
	values      map[string]bool
}

// detectedFields serves Drilldown's field list: Loki reads the newest
// line_limit entries of the query and reports their structured metadata
// and the fields json (or else logfmt) finds in the lines, with a type
// guessed from the values and the number of distinct values.
func (s *Server) detectedFields(w http.ResponseWriter, ctx context.Context, t backend.Tenant, q detectedRequest, _ frontend.ReadState) {
	streams, ok := s.detectedEntries(w, ctx, t, q)
	if !ok {
		return
	}
	fields := map[string]*detectedField{}
	add := func(name, value string, parsers []string) *detectedField {
		f := fields[name]
		if f == nil {
			if len(fields) >= q.Limit {
				return nil
			}
			f = &detectedField{Label: name, Parsers: parsers, values: map[string]bool{}}
			fields[name] = f
		}
		f.values[value] = true
		return f
	}
	for _, st := range streams {
		for _, e := range st.Entries {
			typed := map[string]bool{}
			note := func(f *detectedField, value string) {
				// Loki types a field by the first value of each entry; the
				// last entry read decides.
				if f != nil && !typed[f.Label] {
					f.Type, typed[f.Label] = fieldType(value), true
				}
			}
			for _, l := range e.StructuredMetadata {
				note(add(l.Name, l.Value, nil), l.Value)
			}
			typed = map[string]bool{}
			parsed := exec.DetectFields(st.Labels, e.Line)
			for _, l := range append(append(model.Labels{}, e.Parsed...), parsed.Fields...) {
				if l.Name == "__error__" || l.Name == "__error_details__" || l.Name == "__preserve_error__" {
					continue
				}
				f := add(l.Name, l.Value, []string{parsed.Parser})
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
	}
	out := make([]*detectedField, 0, len(fields))
	for _, f := range fields {
		f.Cardinality = len(f.values)
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	// Loki leaves out an empty list (and the limit) altogether: {}.
	body := map[string]any{}
	if len(out) > 0 {
		body["fields"], body["limit"] = out, q.Limit
	}
	writeJSON(w, body)
}

// detectedFieldValues serves detected_field/{name}/values: the distinct
// values of one field in the newest line_limit entries; byte sizes are
// written as humanize does, ready to paste into a query.
func (s *Server) detectedFieldValues(w http.ResponseWriter, ctx context.Context, t backend.Tenant, q detectedRequest, _ frontend.ReadState) {
	streams, ok := s.detectedEntries(w, ctx, t, q)
	if !ok {
		return
	}
	name := q.Name
	values := map[string]bool{}
	for _, st := range streams {
		for _, e := range st.Entries {
			if len(values) >= q.Limit {
				break
			}
			if v, ok := e.StructuredMetadata.Get(name); ok {
				values[v] = true
			}
			parsed := exec.DetectFields(st.Labels, e.Line)
			for _, set := range []model.Labels{e.Parsed, parsed.Fields} {
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
	body := map[string]any{}
	if len(out) > 0 {
		body["values"], body["limit"] = out, q.Limit
	}
	writeJSON(w, body)
}

// detectedEntries runs the request's log query backward for line_limit
// entries, structured metadata and parsed labels kept apart.
func (s *Server) detectedEntries(w http.ResponseWriter, ctx context.Context, t backend.Tenant, q detectedRequest) ([]model.Stream, bool) {
	res, err := s.d.Frontend.Range(ctx, t, frontend.RangeRequest{
		Expr: q.Selector, Start: q.Start, End: q.End, Limit: q.LineLimit, Direction: exec.Backward, Categorize: true,
	})
	if err != nil {
		writeError(w, err)
		return nil, false
	}
	return res.Streams.Streams, true
}

// fieldType guesses a value's type in Loki's order.
func fieldType(v string) string {
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

func writeJSON(w http.ResponseWriter, body any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(body)
}
