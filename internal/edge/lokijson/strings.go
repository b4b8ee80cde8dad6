// Package lokijson writes Loki's JSON wire format byte for byte, with
// append-style encoders (no reflection on hot paths).
package lokijson

import (
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendString writes s as Loki's jsoniter WriteString does: control
// characters, '"' and '\\' escaped, every other byte (even invalid UTF-8)
// copied as is. Loki uses it for label names and values.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		b = appendEscapedByte(b, c)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendHTMLString writes s as jsoniter's WriteStringWithHTMLEscaped, which
// Loki uses for log lines: additionally <, > and & become \u003c, \u003e,
// \u0026, invalid UTF-8 bytes become \ufffd, and U+2028/U+2029 are escaped.
func appendHTMLString(b []byte, s string) []byte {
	return appendHTMLEscaped(b, s, appendEscapedByte)
}

// appendStdString writes s as Go's encoding/json does, which Loki's legacy
// API answers through: appendHTMLString's rules, except that \b and \f
// keep their short escapes.
func appendStdString(b []byte, s string) []byte {
	return appendHTMLEscaped(b, s, appendStdEscapedByte)
}

func appendStdEscapedByte(b []byte, c byte) []byte {
	switch c {
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	}
	return appendEscapedByte(b, c)
}

// htmlSafe marks the ASCII bytes a line keeps as they are: one table
// look-up a byte where the loop compared six times.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range []byte(`"\<>&`) {
		t[c] = false
	}
	return t
}()

// appendHTMLEscaped is the HTML-safe string writer; escape writes an ASCII
// byte that needs escaping other than '"' and '\\' (the common ones in JSON
// lines, written here without the call).
func appendHTMLEscaped(b []byte, s string, escape func([]byte, byte) []byte) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			if c == '"' || c == '\\' {
				b = append(b, '\\', c)
			} else {
				b = escape(b, c)
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendEscapedByte(b []byte, c byte) []byte {
	switch c {
	case '\\', '"':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
