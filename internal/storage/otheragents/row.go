package otheragents

import (
	"encoding/json"
	"strings"

	"github.com/vloki/vloki/internal/lokidata"
)

// StreamLabels renames stored stream fields to Loki names (a field
// already so named wins over renamed ones, then the first by name) and
// derives service_name when the stream has none.
func (c *Config) StreamLabels(stored lokidata.Labels) lokidata.Labels {
	out := Rename(stored, nil)
	if len(c.DiscoverServiceName) == 0 {
		return out
	}
	if _, ok := out.Get(ServiceNameLabel); ok {
		return out
	}
	name := UnknownService
	for _, d := range c.DiscoverServiceName {
		if v, ok := out.Get(d); ok && v != "" {
			name = v
			break
		}
	}
	out = append(out, lokidata.Label{Name: ServiceNameLabel, Value: name})
	out.Sort()
	return out
}

// Rename returns stored labels under Loki names, sorted, skipping names
// in taken. A stored name that is already a Loki name wins a collision.
func Rename(stored lokidata.Labels, taken lokidata.Labels) lokidata.Labels {
	out := make(lokidata.Labels, 0, len(stored))
	at := map[string]int{}
	for _, l := range stored {
		name := Loki(l.Name)
		if _, ok := taken.Get(name); ok {
			continue
		}
		if i, ok := at[name]; ok {
			if name == l.Name {
				out[i].Value = l.Value
			}
			continue
		}
		at[name] = len(out)
		out = append(out, lokidata.Label{Name: name, Value: l.Value})
	}
	out.Sort()
	return out
}

// Line rebuilds a line for a row stored without one: its fields as a
// JSON object under their stored names, in name order.
func Line(fields lokidata.Labels) string {
	obj := make(map[string]string, len(fields))
	for _, f := range fields {
		obj[f.Name] = f.Value
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(obj)
	return strings.TrimSuffix(b.String(), "\n")
}
