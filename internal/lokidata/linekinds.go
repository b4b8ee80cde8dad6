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
	if hasNonASCII(line) {
		k |= LineNonASCII
	}
	return k
}

// hasNonASCII reports whether s holds a byte outside ASCII, reading eight
// bytes at a time: every pushed line passes here.
func hasNonASCII(s string) bool {
	const high = 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&high != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}
