package push

import (
	"strconv"
	"strings"

	"github.com/vloki/vloki/internal/lokidata"
)

// parseLabels reads a Prometheus-style label string, {a="b", c="d"}, as
// Loki's syntax.ParseLabels accepts it: names are LogQL identifiers, values
// Go-quoted strings, only "=" between them.
func parseLabels(s string) (lokidata.Labels, error) {
	rest := strings.TrimSpace(s)
	if !strings.HasPrefix(rest, "{") || !strings.HasSuffix(rest, "}") {
		return nil, badRequest("couldn't parse labels: %q is not a label set like {name=\"value\"}", s)
	}
	rest = strings.TrimSpace(rest[1 : len(rest)-1])
	// Every label has an '=': sized once, where growing took four allocations for five labels.
	ls := make(lokidata.Labels, 0, strings.Count(rest, "="))
	for rest != "" {
		eq := strings.IndexByte(rest, '=')
		if eq < 0 {
			return nil, badRequest("couldn't parse labels: missing '=' in %q", s)
		}
		name := strings.TrimSpace(rest[:eq])
		if !validLabelName(name) {
			return nil, badRequest("couldn't parse labels: invalid label name %q in %q", name, s)
		}
		rest = strings.TrimLeft(rest[eq+1:], " ")
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, badRequest("couldn't parse labels: value of %q is not a quoted string in %q", name, s)
		}
		// QuotedPrefix checked it: a double-quoted value without a backslash is what is inside.
		v := q[1 : len(q)-1]
		if q[0] != '"' || strings.IndexByte(v, '\\') >= 0 {
			v, _ = strconv.Unquote(q)
		}
		ls = append(ls, lokidata.Label{Name: name, Value: v})
		rest = strings.TrimLeft(rest[len(q):], " ")
		if rest != "" {
			if rest[0] != ',' {
				return nil, badRequest("couldn't parse labels: expected ',' after %s=%s in %q", name, q, s)
			}
			rest = strings.TrimLeft(rest[1:], " ")
		}
	}
	ls.Sort()
	return ls, nil
}

// validLabelName is LogQL's identifier rule: [a-zA-Z_][a-zA-Z0-9_]*.
func validLabelName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
