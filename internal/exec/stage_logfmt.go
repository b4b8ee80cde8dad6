package exec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// parseLogfmt is Loki's non-strict logfmt parser: key=value pairs, quoted
// values with JSON escapes, keys without values and empty values skipped,
// malformed pairs skipped without an error, names sanitised, "_extracted"
// on collisions with stream labels or structured metadata, first key wins.
func parseLogfmt(s *entryState) { parseLogfmtWith(s, false, false) }

// parseLogfmtWith adds the flags: --strict stops at the first malformed
// pair and reports it as LogfmtParserErr; --keep-empty keeps empty values.
func parseLogfmtWith(s *entryState, strict, keepEmpty bool) {
	sc := logfmtScanner{line: []byte(s.line)}
	if !scanLogfmt(s, &sc, strict, keepEmpty) {
		return
	}
	if strict && sc.err != "" {
		s.parserError(logfmtParserErr, sc.err)
		s.keepParsing(errorLabel)
	}
}

// scanLogfmt extracts the pairs; false when an early filter dropped the
// entry.
func scanLogfmt(s *entryState, sc *logfmtScanner, strict, keepEmpty bool) bool {
	for !sc.eol() {
		key, value, ok := sc.next()
		if !ok {
			if strict {
				return true
			}
			continue
		}
		name := sanitizeLabelKey(string(key))
		if name == "" {
			continue
		}
		if s.baseOrMetadataHas(name) {
			name += "_extracted"
		}
		if s.wasExtracted(name) || !s.wants(name) || len(value) == 0 && !keepEmpty {
			continue
		}
		if !s.extract(name, dropInvalidUTF8(value)) {
			return false
		}
		if s.allWantedExtracted() {
			return true
		}
	}
	return true
}

func dropInvalidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]rune, 0, len(b))
	for _, r := range string(b) {
		if r != utf8.RuneError {
			out = append(out, r)
		}
	}
	return string(out)
}

// logfmtScanner splits a line into key/value pairs the way Loki's logfmt
// decoder does, including how it recovers from malformed input.
type logfmtScanner struct {
	line []byte
	pos  int
	err  string // the last malformed pair, as Loki's decoder words it
}

func (sc *logfmtScanner) fail(at int, msg string) {
	sc.err = fmt.Sprintf("logfmt syntax error at pos %d : %s", at+1, msg)
}

func validUTF8(b []byte) bool { return !bytes.ContainsRune(b, utf8.RuneError) }

func (sc *logfmtScanner) eol() bool { return sc.pos >= len(sc.line) }

// next returns the next pair; ok is false for a malformed one (skipped
// up to the next whitespace) or at the end of the line.
func (sc *logfmtScanner) next() (key, value []byte, ok bool) {
	for sc.pos < len(sc.line) && sc.line[sc.pos] <= ' ' {
		sc.pos++
	}
	if sc.eol() {
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

func (sc *logfmtScanner) skipValue() ([]byte, []byte, bool) {
	for sc.pos < len(sc.line) && sc.line[sc.pos] > ' ' {
		sc.pos++
	}
	return nil, nil, false
}

// value reads what follows '=': nothing, a bare word, or a quoted string.
func (sc *logfmtScanner) value() ([]byte, bool) {
	if sc.eol() || sc.line[sc.pos] <= ' ' {
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

func (sc *logfmtScanner) quoted() ([]byte, bool) {
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
