package backend

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vloki/vloki/internal/model"
)

// EmptyLineField marks a row whose Loki line was empty: VictoriaLogs cannot
// store an empty _msg. The name is not a valid Loki label name, so it cannot
// collide with user metadata.
const EmptyLineField = "vloki.empty_line"

// ParseStream reads VictoriaLogs' _stream value, {a="b",c="d"} with
// Go-quoted values, into sorted labels.
func ParseStream(s string) (model.Labels, error) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, fmt.Errorf("bad _stream %q", s)
	}
	body := s[1 : len(s)-1]
	var ls model.Labels
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
		ls = append(ls, model.Label{Name: name, Value: v})
		body = strings.TrimPrefix(body[eq+1+len(q):], ",")
	}
	ls.Sort()
	return ls, nil
}
