package stages

import (
	"sort"

	"github.com/vloki/vloki/internal/lang/logql"
)

// parseRegexp is Loki's regexp parser: every named group of the first
// match becomes a label (empty when the group did not take part), names
// sanitised, "_extracted" on collisions, an extracted name kept first.
func parseRegexp(s *Entry, e *logql.LabelParserExpr) {
	m := e.Regexp.FindStringSubmatchIndex(s.Line)
	if m == nil {
		return
	}
	idx := make([]int, 0, len(e.Names))
	for i := range e.Names {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		name := sanitizeLabelKey(e.Names[i])
		if name == "" {
			continue
		}
		if s.baseOrMetadataHas(name) {
			name += "_extracted"
		}
		if s.wasExtracted(name) || !s.wants(name) {
			continue
		}
		value := ""
		if m[2*i] >= 0 {
			value = s.Line[m[2*i]:m[2*i+1]]
		}
		if !s.extract(name, value) {
			return
		}
	}
}
