package logql

import (
	"strings"
	"sync"
	"text/scanner"
	"unicode"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
)

// tokKind classifies tokens.
type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tString
	tNumber
	tPunct
	tRange // `[5m]`: text holds what is between the brackets
	tFlag  // a parser flag: --strict, --keep-empty
	// tDuration and tBytes are a number with a unit right after it (5m,
	// 1.5KiB); Loki's lexer reads them whole.
	tDuration
	tBytes
	tError
)

// token is one lexeme with its 1-based position and byte offsets.
type token struct {
	kind      tokKind
	text      string // raw text; for strings, the unquoted value
	line, col int
	off, end  int
	// call marks a function name that is called (see callAhead): Loki's
	// lexer makes it a function token, never an identifier.
	call bool
}

// name is how Loki's yacc errors name the token.
func (t token) name() string {
	switch t.kind {
	case tEOF:
		return "$end"
	case tIdent:
		if t.call {
			return functionTokenNames[strings.ToLower(t.text)]
		}
		if kw := strings.ToLower(t.text); keywords[kw] {
			return kw
		}
		return "IDENTIFIER"
	case tString:
		return "STRING"
	case tNumber:
		return "NUMBER"
	case tRange:
		return "RANGE"
	case tFlag:
		return "FUNCTION_FLAG"
	case tDuration:
		return "DURATION"
	case tBytes:
		return "BYTES"
	}
	return t.text
}

// keywords are the words Loki's lexer always reads as tokens (never as
// identifiers), named by their text in errors.
var keywords = map[string]bool{
	"or": true, "and": true, "unless": true, "by": true, "without": true, "bool": true, "offset": true,
	"on": true, "ignoring": true, "group_left": true, "group_right": true,
	"json": true, "regexp": true, "logfmt": true, "unpack": true, "pattern": true, "label_format": true,
	"line_format": true, "decolorize": true, "drop": true, "keep": true, "variants": true,
	"of": true, "unwrap": true,
}

// isName reports an identifier usable as a label name.
func (t token) isName() bool {
	return t.kind == tIdent && !t.call && !keywords[strings.ToLower(t.text)]
}

// isTwoCharOp reports an operator made of two characters.
func isTwoCharOp(a, b byte) bool {
	switch b {
	case '=':
		return a == '!' || a == '|' || a == '=' || a == '>' || a == '<'
	case '~':
		return a == '=' || a == '!' || a == '|'
	case '>':
		return a == '|' || a == '!'
	}
	return false
}

// isKnownPunct reports the one-character operators and delimiters Loki's
// lexer has tokens for; the two-character ones are known too.
func isKnownPunct(s string) bool {
	if len(s) == 2 {
		return isTwoCharOp(s[0], s[1])
	}
	return len(s) == 1 && strings.IndexByte(",.{}()[]=|+-*/%^><", s[0]) >= 0
}

// lexer tokenizes LogQL with Go's text/scanner, as Loki does.
type lexer struct {
	onError func(*scanner.Scanner, string)
	input   string
	s       scanner.Scanner
	src     *strings.Reader
	err     *ParseError
}

// lexers are reused: each holds text/scanner's kilobyte of buffer.
var lexerPool = sync.Pool{New: func() any {
	l := &lexer{src: new(strings.Reader)}
	l.onError = func(s *scanner.Scanner, msg string) {
		if l.err == nil {
			// Loki reports the start of the token being read.
			l.err = &ParseError{Msg: msg, Line: s.Position.Line, Col: s.Position.Column}
		}
	}
	return l
}}

func newLexer(input string) *lexer {
	l := lexerPool.Get().(*lexer)
	l.input, l.err = input, nil
	l.src.Reset(input)
	// GoTokens, as Loki's scanner: Go's comments (// and /* */) are skipped.
	l.s.Init(l.src)
	l.s.Error = l.onError
	return l
}

// release returns the lexer to the pool once parsing is over.
func (l *lexer) release() {
	l.input = ""
	lexerPool.Put(l)
}

func (l *lexer) next() token {
	r := l.s.Scan()
	// Loki reports the scanner's Position as it stands: line 0 when it was
	// invalidated (at the end of empty input, after a range's brackets).
	pos := l.s.Position
	tok := token{line: pos.Line, col: pos.Column, off: pos.Offset}
	switch r {
	case scanner.EOF:
		tok.kind = tEOF
	case '#':
		for p := l.s.Peek(); p != '\n' && p != scanner.EOF; p = l.s.Peek() {
			l.s.Next()
		}
		return l.next()
	case scanner.Ident:
		end := l.s.Pos().Offset
		tok.kind, tok.text = tIdent, l.input[pos.Offset:end]
		_, isFunc := functionTokenNames[strings.ToLower(tok.text)]
		tok.call = isFunc && callAhead(l.input[end:])
	case scanner.Int, scanner.Float:
		tok.kind, tok.text = tNumber, l.input[pos.Offset:l.s.Pos().Offset]
		tok = l.withUnit(tok)
	case scanner.String, scanner.RawString:
		tok = l.stringToken(tok)
	case '[':
		tok = l.rangeToken(tok)
	case '-':
		if flag := l.flagAhead(); flag != "" {
			for range len(flag) - 1 {
				l.s.Next()
			}
			tok.kind, tok.text, tok.line = tFlag, flag, 0
			break
		}
		tok.kind, tok.text = tPunct, "-"
		if d := l.withUnit(tok); d.kind == tDuration {
			tok = d
		}
	default:
		end := l.s.Pos().Offset
		tok.kind, tok.text = tPunct, l.input[pos.Offset:end]
		if end < len(l.input) && end == pos.Offset+1 && isTwoCharOp(l.input[pos.Offset], l.input[end]) {
			l.s.Next() // invalidates the token's line, as in Loki's lexer
			tok.text, tok.line = l.input[pos.Offset:end+1], 0
		}
		if !isKnownPunct(tok.text) {
			// Loki's lexer makes any other character an identifier.
			tok.kind = tIdent
		}
	}
	tok.end = l.s.Pos().Offset
	return tok
}

// withUnit extends a number (or a minus sign) with the digits, dots and
// unit letters right after it when the whole reads as a duration, or
// else as a byte size, as Loki's lexer does.
func (l *lexer) withUnit(tok token) token {
	start := l.s.Pos().Offset
	for _, try := range []struct {
		kind  tokKind
		unit  func(rune) bool
		valid func(string) bool
	}{{tDuration, isDurationRune, validDuration}, {tBytes, isBytesRune, validBytes}} {
		end := start
		for end < len(l.input) {
			r, size := utf8.DecodeRuneInString(l.input[end:])
			if unicode.IsSpace(r) || !unicode.IsNumber(r) && !try.unit(r) && r != '.' {
				break
			}
			end += size
		}
		if end == start || !try.valid(l.input[tok.off:end]) {
			continue
		}
		for l.s.Pos().Offset < end {
			l.s.Next()
		}
		tok.kind, tok.text, tok.line = try.kind, l.input[tok.off:end], 0
		return tok
	}
	return tok
}

func isDurationRune(r rune) bool { return strings.ContainsRune("nuµmshdwy", r) }

func isBytesRune(r rune) bool { return strings.ContainsRune("BikKMGTP", r) }

func validDuration(s string) bool {
	_, err := parseLokiDuration(s)
	return err == nil
}

func validBytes(s string) bool {
	_, err := humanize.ParseBytes(s)
	return err == nil
}

// flagAhead returns the parser flag starting at the '-' just scanned,
// or "": Loki reads letters and dashes and keeps a known flag.
func (l *lexer) flagAhead() string {
	rest := l.input[l.s.Pos().Offset-1:]
	end := 1
	for end < len(rest) && (rest[end] == '-' || rest[end] >= 'a' && rest[end] <= 'z' || rest[end] >= 'A' && rest[end] <= 'Z') {
		end++
	}
	if f := rest[:end]; f == "--strict" || f == "--keep-empty" {
		return f
	}
	return ""
}

// callAhead is Loki's test for a function name being called: what
// follows it, blanks skipped, is `(`, or `by` or `without` (any case)
// then `(`.
func callAhead(rest string) bool {
	rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
	if strings.HasPrefix(rest, "(") {
		return true
	}
	for _, kw := range []string{"by", "without"} {
		if len(rest) >= len(kw) && strings.EqualFold(rest[:len(kw)], kw) {
			return strings.HasPrefix(strings.TrimLeftFunc(rest[len(kw):], unicode.IsSpace), "(")
		}
	}
	return false
}

// rangeToken reads up to the closing bracket and its duration, as Loki's
// lexer does: a bad duration is an error of the lexer.
func (l *lexer) rangeToken(tok token) token {
	var b strings.Builder
	for r := l.s.Next(); r != scanner.EOF; r = l.s.Next() {
		if r == ']' {
			tok.kind, tok.text = tRange, b.String()
			tok.line = 0 // reading on with Next invalidates the line, not the column
			if _, err := parseRangeDuration(tok.text); err != nil {
				l.err = &ParseError{Msg: err.Error(), Line: 0, Col: tok.col}
				tok.kind = tError
			}
			return tok
		}
		b.WriteRune(r)
	}
	// Next invalidated the line, as in Loki.
	l.err = &ParseError{Msg: "missing closing ']' in duration", Line: 0, Col: tok.col}
	tok.kind = tError
	return tok
}

func (l *lexer) stringToken(tok token) token {
	if l.err != nil {
		tok.kind = tError
		return tok
	}
	v, err := unquote(l.s.TokenText())
	if err != nil {
		l.err = &ParseError{Msg: err.Error(), Line: tok.line, Col: tok.col}
		tok.kind = tError
		return tok
	}
	tok.kind, tok.text = tString, v
	return tok
}

func (t token) isPunctText(s string) bool { return t.kind == tPunct && t.text == s }
