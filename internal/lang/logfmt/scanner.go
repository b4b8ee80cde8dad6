// Package logfmt splits a line into key/value pairs exactly as Loki's
// logfmt decoder does, including how it recovers from malformed pairs.
package logfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// NewScanner reads pairs from line.
func NewScanner(line []byte) *Scanner { return &Scanner{line: line} }

func validUTF8(b []byte) bool { return !bytes.ContainsRune(b, utf8.RuneError) }

// Scanner splits a line into key/value pairs the way Loki's logfmt
// decoder does, including how it recovers from malformed input.
type Scanner struct {
	line []byte
	pos  int
	err  string
}

// Err is the last malformed pair, as Loki's decoder words it; "" if none.
func (sc *Scanner) Err() string { return sc.err }

func (sc *Scanner) fail(at int, msg string) {
	sc.err = fmt.Sprintf("logfmt syntax error at pos %d : %s", at+1, msg)
}

func (sc *Scanner) EOL() bool { return sc.pos >= len(sc.line) }

// Next returns the next pair; ok is false for a malformed one (skipped
// up to the next whitespace) or at the end of the line.
func (sc *Scanner) Next() (key, value []byte, ok bool) {
	for sc.pos < len(sc.line) && sc.line[sc.pos] <= ' ' {
		sc.pos++
	}
	if sc.EOL() {
		return nil, nil, false
	}
	start, multibyte := sc.pos, false
	for ; sc.pos < len(sc.line); sc.pos++ {
		c := sc.line[sc.pos]
		switch {
		case c == '=':
			key = sc.line[start:sc.pos]
			if len(key) == 0 {
				sc.fail(sc.pos, "unexpected '='")
				return sc.skipValue()
			}
			if multibyte && !validUTF8(key) {
				sc.fail(sc.pos, "invalid key")
				return sc.skipValue()
			}
			sc.pos++
			value, ok = sc.value()
			return key, value, ok
		case c == '"':
			sc.fail(sc.pos, "unexpected '\"'")
			return sc.skipValue()
		case c <= ' ':
			key = sc.line[start:sc.pos]
			if multibyte && !validUTF8(key) {
				sc.fail(sc.pos, "invalid key")
				return nil, nil, false
			}
			return key, nil, true
		case c >= utf8.RuneSelf:
			multibyte = true
		}
	}
	key = sc.line[start:]
	if multibyte && !validUTF8(key) {
		sc.fail(len(sc.line), "invalid key")
		return nil, nil, false
	}
	return key, nil, true
}

func (sc *Scanner) skipValue() ([]byte, []byte, bool) {
	for sc.pos < len(sc.line) && sc.line[sc.pos] > ' ' {
		sc.pos++
	}
	return nil, nil, false
}

// value reads what follows '=': nothing, a bare word, or a quoted string.
func (sc *Scanner) value() ([]byte, bool) {
	if sc.EOL() || sc.line[sc.pos] <= ' ' {
		return nil, true
	}
	if sc.line[sc.pos] == '"' {
		return sc.quoted()
	}
	start := sc.pos
	for ; sc.pos < len(sc.line); sc.pos++ {
		c := sc.line[sc.pos]
		if c == '=' || c == '"' {
			sc.fail(sc.pos, fmt.Sprintf("unexpected %q", c))
			_, _, ok := sc.skipValue()
			return nil, ok
		}
		if c <= ' ' {
			break
		}
	}
	return sc.line[start:sc.pos], true
}

func (sc *Scanner) quoted() ([]byte, bool) {
	start := sc.pos
	escaped, hasEscape := false, false
	for i := sc.pos + 1; i < len(sc.line); i++ {
		c := sc.line[i]
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped, hasEscape = true, true
		case c == '"':
			sc.pos = i + 1
			if !hasEscape {
				return sc.line[start+1 : i], true
			}
			var s string
			if err := json.Unmarshal(sc.line[start:sc.pos], &s); err != nil {
				sc.fail(sc.pos, "invalid quoted value")
				return nil, false
			}
			return []byte(s), true
		}
	}
	sc.pos = len(sc.line)
	sc.fail(sc.pos, "unterminated quoted value")
	return nil, false
}
