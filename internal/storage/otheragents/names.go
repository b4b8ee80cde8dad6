// Package otheragents maps the field names of data other agents wrote into
// VictoriaLogs (OpenTelemetry's dotted attributes, JSON paths, ...) to Loki
// label names and back. Loki names OTLP attributes with Prometheus'
// otlptranslator rules, so `service.name` reads as `service_name` here too.
package otheragents

import (
	"slices"

	"github.com/prometheus/otlptranslator"
)

// Loki returns the Loki label name a VictoriaLogs field is exposed under.
func Loki(vl string) string {
	if isLabelName(vl) {
		return vl
	}
	namer := otlptranslator.LabelNamer{}
	name, err := namer.Build(vl)
	if err != nil {
		// Empty or only underscores: nothing Loki could name it.
		return vl
	}
	return name
}

// isLabelName reports a valid Prometheus label name, kept as it is.
func isLabelName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Map knows, for each Loki name that differs from a stored field name,
// every VictoriaLogs field exposed under it. The nil Map maps every name
// to itself.
type Map struct {
	vl map[string][]string
}

// New builds the map from the stored field names.
func New(vlNames []string) *Map {
	m := &Map{vl: map[string][]string{}}
	present := map[string]bool{}
	for _, n := range vlNames {
		present[n] = true
	}
	for _, n := range vlNames {
		if name := Loki(n); name != n {
			m.vl[name] = append(m.vl[name], n)
		}
	}
	for name, fields := range m.vl {
		slices.Sort(fields)
		if present[name] {
			// The field already called so wins; list it first.
			fields = append([]string{name}, fields...)
		}
		m.vl[name] = fields
	}
	return m
}

// VL returns the stored fields a Loki name stands for, the identical name
// first when it exists.
func (m *Map) VL(name string) []string {
	if m != nil {
		if fields, ok := m.vl[name]; ok {
			return fields
		}
	}
	return []string{name}
}

// Renamed reports that the Loki name stands for a field of another name.
func (m *Map) Renamed(name string) bool {
	fs := m.VL(name)
	return len(fs) != 1 || fs[0] != name
}
