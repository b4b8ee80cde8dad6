package stages

import "github.com/vloki/vloki/internal/lang/logql"

// parsePattern is Loki's pattern parser: each named capture that the line
// reaches becomes a label (names are used as written), "_extracted" on
// collisions, an extracted name kept first.
func parsePattern(s *Entry, e *logql.LabelParserExpr) {
	names := e.Pattern.Names()
	for i, v := range e.Pattern.Matches(s.Line) {
		name := names[i]
		if s.baseOrMetadataHas(name) {
			name += "_extracted"
		}
		if s.wasExtracted(name) || !s.wants(name) {
			continue
		}
		if !s.extract(name, v) {
			return
		}
	}
}
