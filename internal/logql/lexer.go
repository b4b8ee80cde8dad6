package logql

import (
	"strings"
	"text/scanner"
)

// tokKind classifies tokens.
type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tString
	tNumber
	tPunct
	tError
)

// token is one lexeme with its 1-based position.
type token struct {
	kind      tokKind
	text      string // raw text; for strings, the unquoted value
	line, col int
}

// name is how Loki's yacc errors name the token.
func (t token) name() string {
	switch t.kind {
	case tEOF:
		return "$end"
	case tIdent:
		if kw := strings.ToLower(t.text); keywords[kw] {
			return kw
		}
		return "IDENTIFIER"
	case tString:
		return "STRING"
	case tNumber:
		return "NUMBER"
	}
	return t.text
}

// keywords are tokens Loki names by their text.
var keywords = map[string]bool{"or": true, "and": true, "unless": true, "by": true, "without": true, "bool": true, "offset": true, "on": true, "ignoring": true, "group_left": true, "group_right": true}

// twoCharOps are the operators made of two characters.
var twoCharOps = map[string]bool{"!=": true, "=~": true, "!~": true, "|=": true, "|~": true, "|>": true, "!>": true, "==": true, ">=": true, "<=": true}

// lexer tokenizes LogQL with Go's text/scanner, as Loki does.
type lexer struct {
	s   scanner.Scanner
	err *ParseError
}

func newLexer(input string) *lexer {
	l := &lexer{}
	l.s.Init(strings.NewReader(input))
	l.s.Mode = scanner.ScanIdents | scanner.ScanInts | scanner.ScanFloats | scanner.ScanStrings | scanner.ScanRawStrings
	l.s.Error = func(s *scanner.Scanner, msg string) {
		if l.err == nil {
			l.err = &ParseError{Msg: msg, Line: s.Pos().Line, Col: s.Pos().Column}
		}
	}
	return l
}

func (l *lexer) next() token {
	r := l.s.Scan()
	pos := l.s.Position
	if !pos.IsValid() {
		pos = l.s.Pos()
	}
	tok := token{line: pos.Line, col: pos.Column}
	switch r {
	case scanner.EOF:
		tok.kind = tEOF
	case '#':
		for p := l.s.Peek(); p != '\n' && p != scanner.EOF; p = l.s.Peek() {
			l.s.Next()
		}
		return l.next()
	case scanner.Ident:
		tok.kind, tok.text = tIdent, l.s.TokenText()
	case scanner.Int, scanner.Float:
		tok.kind, tok.text = tNumber, l.s.TokenText()
	case scanner.String, scanner.RawString:
		return l.stringToken(tok)
	default:
		tok.kind, tok.text = tPunct, string(r)
		if two := tok.text + string(l.s.Peek()); twoCharOps[two] {
			l.s.Next()
			tok.text = two
		}
	}
	return tok
}

func (l *lexer) stringToken(tok token) token {
	v, err := unquote(l.s.TokenText())
	if err != nil {
		l.err = &ParseError{Msg: err.Error(), Line: tok.line, Col: tok.col}
		tok.kind = tError
		return tok
	}
	tok.kind, tok.text = tString, v
	return tok
}
