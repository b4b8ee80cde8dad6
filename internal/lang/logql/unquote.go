package logql

import (
	"strconv"
	"unicode/utf8"
)

// unquote reads "..." with Go escapes and `...` raw strings.
func unquote(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", errInvalidUTF8
	}
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return s[1 : len(s)-1], nil
	}
	return strconv.Unquote(s)
}

type constError string

func (e constError) Error() string { return string(e) }

const errInvalidUTF8 = constError("invalid UTF-8 rune")
