package logql

import (
	"fmt"
	"unicode/utf8"
)

// exprScanner reads the expressions of json and logfmt parameters
// (`| json a="b.c[0]"`, `| logfmt a="b"`) rune by rune, as the scanners of
// Loki's two small expression grammars do: the end of the text or a NUL
// ends the input, and a scanning error ends it too, after recording a
// message that a later syntax error replaces.
type exprScanner struct {
	s    string
	i    int
	last int // the size of the rune read last, for unread
	err  error
}

// read returns the next rune, 0 at the end.
func (sc *exprScanner) read() rune {
	if sc.i >= len(sc.s) {
		sc.last = 0
		return 0
	}
	r, size := utf8.DecodeRuneInString(sc.s[sc.i:])
	sc.i, sc.last = sc.i+size, size
	return r
}

func (sc *exprScanner) unread() { sc.i -= sc.last; sc.last = 0 }

// fail records a scanning error; the token read is then the end.
func (sc *exprScanner) fail(format string, args ...any) string {
	sc.err = &pathError{fmt.Sprintf(format, args...)}
	return "$end"
}

// skipBlanks reads past blanks and returns the first other rune.
func (sc *exprScanner) skipBlanks() rune {
	for {
		switch r := sc.read(); r {
		case ' ', '\t', '\n':
		default:
			return r
		}
	}
}

// field reads a name: ASCII letters, digits and underscores.
func (sc *exprScanner) field() string {
	start := sc.i
	for {
		r := sc.read()
		if r == 0 || !isExprNameRune(r) {
			sc.unread()
			return sc.s[start:sc.i]
		}
	}
}

// quoted reads a string after its opening quote, up to a closing quote,
// a `]` or the end, none of which it keeps.
func (sc *exprScanner) quoted() string {
	var out []rune
	for {
		r := sc.read()
		if r == 0 || r == '"' || r == ']' {
			return string(out)
		}
		out = append(out, r)
	}
}

func isExprNameStart(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' }

func isExprNameRune(r rune) bool { return isExprNameStart(r) || r >= '0' && r <= '9' }

type pathError struct{ msg string }

func (e *pathError) Error() string { return e.msg }

// syntaxErr is a syntax error of the expression grammars, which replaces
// any scanning error.
func syntaxErr(tok string, expecting string) error {
	msg := "syntax error: unexpected " + tok
	if expecting != "" {
		msg += ", expecting " + expecting
	}
	return &pathError{msg}
}

// checkLogfmtExpression applies Loki's grammar of a logfmt parameter's
// expression: a key or a string, then strings.
func checkLogfmtExpression(expr string) error {
	sc := &exprScanner{s: expr}
	next := func() string {
		switch r := sc.skipBlanks(); {
		case r == 0:
			return "$end"
		case isExprNameStart(r):
			sc.unread()
			sc.field()
			return "KEY"
		case r == '"':
			sc.quoted()
			return "STRING"
		default:
			return sc.fail("unexpected char %c", r)
		}
	}
	if t := next(); t != "KEY" && t != "STRING" {
		return syntaxErr(t, "STRING or KEY")
	}
	for {
		switch t := next(); t {
		case "STRING":
		case "$end":
			return sc.err
		default:
			return syntaxErr(t, "")
		}
	}
}
