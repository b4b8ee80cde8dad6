package lokidata

import (
	"strings"
	"unicode/utf8"
)

// LineKinds is a set of kinds of lines that a LogsQL filter answered from
// VictoriaLogs' token blooms cannot tell apart from others, so a plan that
// knows a range holds none of a kind can use the cheaper filter.
type LineKinds uint8

const (
	// LineEscapes: the line holds a backslash (a JSON or logfmt escape may
	// hide a value a parser reads).
	LineEscapes LineKinds = 1 << iota
	// LineNonASCII: the line holds a byte outside ASCII (a Unicode letter
	// joins a token RE2's ASCII \b splits; a literal U+FFFD is read as a
	// space by Loki's parsers).
	LineNonASCII
)

// KindsOf returns the kinds line is of.
func KindsOf(line string) LineKinds {
	var k LineKinds
	if strings.IndexByte(line, '\\') >= 0 {
		k |= LineEscapes
	}
	for i := 0; i < len(line); i++ {
		if line[i] >= utf8.RuneSelf {
			return k | LineNonASCII
		}
	}
	return k
}
