// Package pattern implements Loki's pattern expressions (`<name>` captures,
// `<_>` skips, literal text between them) for the pattern parser and the
// |> and !> line filters.
package pattern

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Loki's pattern errors.
var (
	ErrNoCapture         = errors.New("at least one capture is required")
	ErrCaptureNotAllowed = errors.New("named captures are not allowed")
	ErrInvalidExpr       = errors.New("invalid expression")
)

// node is a capture name (with Capture set) or literal text.
type node struct {
	Capture bool
	Text    string
}

func (n node) String() string {
	if n.Capture {
		return "<" + n.Text + ">"
	}
	return n.Text
}

func (n node) unnamed() bool { return n.Capture && n.Text == "_" }

// Expr is a parsed pattern.
type Expr []node

// Parse splits a pattern into captures and literals; a '<' that does not
// open a valid capture is literal text.
func Parse(in string) (Expr, error) {
	if !utf8.ValidString(in) {
		return nil, errors.New("invalid UTF-8 in pattern")
	}
	var e Expr
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			e = append(e, node{Text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(in); {
		if name, n := captureAt(in[i:]); n > 0 {
			flush()
			e = append(e, node{Capture: true, Text: name})
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(in[i:])
		lit.WriteRune(r)
		i += size
	}
	flush()
	if len(e) == 0 {
		// An empty pattern, worded as Loki's pattern grammar reports it.
		return nil, errors.New("parse error at line 1, col 1: syntax error: unexpected $end, expecting IDENTIFIER or LITERAL")
	}
	return e, nil
}

// captureAt reads `<[A-Za-z_][A-Za-z0-9_]*>` at the start of s.
func captureAt(s string) (string, int) {
	if len(s) < 3 || s[0] != '<' || !(isAlpha(s[1]) || s[1] == '_') {
		return "", 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c == '>':
			return s[1:i], i + 1
		case !(isAlpha(c) || c == '_' || c >= '0' && c <= '9'):
			return "", 0
		}
	}
	return "", 0
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Names are the named captures in order.
func (e Expr) Names() []string {
	var out []string
	for _, n := range e {
		if n.Capture && !n.unnamed() {
			out = append(out, n.Text)
		}
	}
	return out
}

// ValidateParser applies the pattern parser's rules.
func (e Expr) ValidateParser() error {
	if len(e.Names()) == 0 {
		return ErrNoCapture
	}
	if err := e.validateNoConsecutiveCaptures(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, n := range e.Names() {
		if seen[n] {
			return fmt.Errorf("duplicate capture name (%s): %w", n, ErrInvalidExpr)
		}
		seen[n] = true
	}
	return nil
}

// ValidateLineFilter applies the |> filter's rules: no adjacent captures,
// no named ones.
func (e Expr) ValidateLineFilter() error {
	if err := e.validateNoConsecutiveCaptures(); err != nil {
		return err
	}
	for _, n := range e {
		if n.Capture && !n.unnamed() {
			return fmt.Errorf("%w: found '%s'", ErrCaptureNotAllowed, n.String())
		}
	}
	return nil
}

func (e Expr) validateNoConsecutiveCaptures() error {
	for i := 0; i+1 < len(e); i++ {
		if e[i].Capture && e[i+1].Capture {
			return fmt.Errorf("found consecutive capture '%s': %w", e[i].String()+e[i+1].String(), ErrInvalidExpr)
		}
	}
	return nil
}

// Matches returns the named captures' values for a line, as Loki's
// pattern parser takes them: a leading literal must start the line; each
// capture runs to the next literal, or to the end when that literal is
// missing or the pattern ends.
func (e Expr) Matches(line string) []string {
	if line == "" || len(e) == 0 {
		return nil
	}
	in, expr := line, e
	if !expr[0].Capture {
		if !strings.HasPrefix(in, expr[0].Text) {
			return nil
		}
		in, expr = in[len(expr[0].Text):], expr[1:]
	}
	var out []string
	for len(expr) > 0 {
		c := expr[0]
		if len(expr) == 1 {
			if !c.unnamed() {
				out = append(out, in)
			}
			return out
		}
		lit := expr[1].Text
		expr = expr[2:]
		i := strings.Index(in, lit)
		if i < 0 {
			if !c.unnamed() {
				out = append(out, in)
			}
			return out
		}
		if !c.unnamed() {
			out = append(out, in[:i])
		}
		in = in[i+len(lit):]
	}
	return out
}

// Test is the |> line filter: literals in order, no empty captures, and
// the line ends where the pattern does.
func (e Expr) Test(line string) bool {
	in := []byte(line)
	if len(in) == 0 || len(e) == 0 {
		return len(in) == 0 && len(e) == 0
	}
	off := 0
	for i, n := range e {
		if n.Capture {
			continue
		}
		j := bytes.Index(in[off:], []byte(n.Text))
		if j == -1 || i != 0 && j == 0 {
			return false
		}
		off += j + len(n.Text)
	}
	endsOnCapture := e[len(e)-1].Capture
	return endsOnCapture == (off != len(in))
}
