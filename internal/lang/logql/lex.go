package logql

// Lexeme is one token of a query as the parser reads it: the name Loki's
// errors give it (STRING, NUMBER, DURATION, RANGE, IDENTIFIER, a keyword
// or an operator) and its bytes in the query.
type Lexeme struct {
	Name     string
	Off, End int
}

// Lex splits a query into the parser's tokens, up to the first lexical
// error (returned with the tokens read before it). Tools that derive
// queries from others, such as the malformed-query generator, use it.
func Lex(input string) ([]Lexeme, error) {
	l := newLexer(input)
	defer l.release()
	var out []Lexeme
	for {
		t := l.next()
		if l.err != nil {
			return out, l.err
		}
		if t.kind == tEOF {
			return out, nil
		}
		out = append(out, Lexeme{Name: t.name(), Off: t.off, End: t.end})
	}
}
