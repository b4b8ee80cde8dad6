package backend

import (
	"unicode/utf8"
)

// scanRow reads the flat JSON object of string values VictoriaLogs writes
// for each row ({"name":"value",...}) into row, unescaping into scratch.
// It returns the grown scratch and false when the line is anything else
// (or uses an escape it does not handle), so the caller falls back to a
// general JSON parser.
func scanRow(line []byte, row *Row, scratch []byte) ([]byte, bool) {
	row.Fields = row.Fields[:0]
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return scratch, false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return scratch, skipSpace(line, i+1) == len(line)
	}
	for {
		var name, value []byte
		var ok bool
		if name, scratch, i, ok = scanString(line, i, scratch); !ok {
			return scratch, false
		}
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != ':' {
			return scratch, false
		}
		if value, scratch, i, ok = scanString(line, skipSpace(line, i+1), scratch); !ok {
			return scratch, false
		}
		row.Fields = append(row.Fields, Field{Name: name, Value: value})
		i = skipSpace(line, i)
		if i >= len(line) {
			return scratch, false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			return scratch, skipSpace(line, i+1) == len(line)
		default:
			return scratch, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// scanString reads the JSON string starting at b[i]. Without escapes the
// result aliases b; otherwise it is unescaped into scratch.
func scanString(b []byte, i int, scratch []byte) (s, grown []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, scratch, i, false
	}
	start := i + 1
	for j := start; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[start:j], scratch, j + 1, true
		case c == '\\':
			return unescapeString(b, start, j, scratch)
		case c < 0x20:
			return nil, scratch, j, false
		}
	}
	return nil, scratch, len(b), false
}

// unescapeString continues scanString from the first backslash at j.
func unescapeString(b []byte, start, j int, scratch []byte) (s, grown []byte, next int, ok bool) {
	from := len(scratch)
	scratch = append(scratch, b[start:j]...)
	for j < len(b) {
		c := b[j]
		switch {
		case c == '"':
			return scratch[from:], scratch, j + 1, true
		case c < 0x20:
			return nil, scratch, j, false
		case c != '\\':
			scratch = append(scratch, c)
			j++
			continue
		}
		if j+1 >= len(b) {
			return nil, scratch, j, false
		}
		switch b[j+1] {
		case '"', '\\', '/':
			scratch = append(scratch, b[j+1])
		case 'b':
			scratch = append(scratch, '\b')
		case 'f':
			scratch = append(scratch, '\f')
		case 'n':
			scratch = append(scratch, '\n')
		case 'r':
			scratch = append(scratch, '\r')
		case 't':
			scratch = append(scratch, '\t')
		case 'u':
			r, ok := hex4(b, j+2)
			if !ok || (r >= 0xD800 && r <= 0xDFFF) {
				// Surrogates (and malformed escapes) go to the general parser.
				return nil, scratch, j, false
			}
			scratch = utf8.AppendRune(scratch, r)
			j += 6
			continue
		default:
			return nil, scratch, j, false
		}
		j += 2
	}
	return nil, scratch, j, false
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
