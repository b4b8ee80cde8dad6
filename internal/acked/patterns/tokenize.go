package patterns

import (
	"strings"
	"unicode"

	"github.com/go-logfmt/logfmt"
	"github.com/grafana/jsonparser"

	lf "github.com/vloki/vloki/internal/lang/logfmt"
)

// placeholder stands for a token that varies between a pattern's lines.
const placeholder = "<_>"

// maxTokens is where the punctuation tokenizer stops splitting; the rest
// of the line becomes one token (and the line too long to mine).
const maxTokens = 127

// tokenizer splits a line into the tokens Drain compares, and joins a
// cluster's tokens back into the pattern text. spaces records, for each
// space of the line, the index of the token it follows.
type tokenizer interface {
	tokenize(line string) (tokens []string, spaces []int, ok bool)
	join(tokens []string, spaces []int) string
}

// punctuation is Loki's default tokenizer: letters, digits and _-.:/ stay
// inside tokens; a space ends a token; '=' and other punctuation end a
// token and are tokens of their own (only their first byte, as in Loki).
type punctuation struct{ maxLineLength int }

func (p punctuation) tokenize(line string) ([]string, []int, bool) {
	if len(line) > p.maxLineLength {
		return nil, nil, false
	}
	tokens := make([]string, 0, 32)
	var spaces []int
	start := 0
	for i, r := range line {
		if len(tokens) >= maxTokens {
			break
		}
		if insideToken(r) || r != ' ' && r != '=' && !unicode.IsPunct(r) {
			continue
		}
		if i > start {
			tokens = append(tokens, line[start:i])
		}
		if r == ' ' {
			spaces = append(spaces, len(tokens)-1)
		} else {
			tokens = append(tokens, line[i:i+1])
		}
		start = i + 1
	}
	if start < len(line) {
		tokens = append(tokens, line[start:])
	}
	return tokens, spaces, true
}

func insideToken(r rune) bool {
	switch r {
	case '_', '-', '.', ':', '/':
		return true
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// join writes each token followed by the spaces recorded after it. Like
// Loki it walks spaces in order and stops at the first that does not
// follow the current token, so a line's leading space (recorded as
// following token -1) suppresses every space of the pattern.
func (punctuation) join(tokens []string, spaces []int) string {
	var b strings.Builder
	next := 0
	for i, t := range tokens {
		b.WriteString(t)
		for next < len(spaces) && spaces[next] == i {
			b.WriteByte(' ')
			next++
		}
	}
	return b.String()
}

// logfmtTokens alternates keys and values of a logfmt line; values of
// time-like keys are placeholders from the start. A malformed pair makes
// the line unusable.
type logfmtTokens struct{ maxLineLength int }

func (t logfmtTokens) tokenize(line string) ([]string, []int, bool) {
	if len(line) > t.maxLineLength {
		return nil, nil, false
	}
	sc := lf.NewScanner([]byte(line))
	tokens := make([]string, 0, 16)
	for !sc.EOL() {
		key, value, ok := sc.Next()
		if sc.Err() != "" {
			return nil, nil, false
		}
		if !ok {
			break
		}
		v := string(value)
		if variableKey(string(key)) {
			v = placeholder
		}
		tokens = append(tokens, string(key), v)
	}
	return tokens, nil, true
}

func variableKey(k string) bool {
	return k == "t" || strings.EqualFold(k, "ts") || strings.EqualFold(k, "traceID") ||
		strings.EqualFold(k, "time") || strings.EqualFold(k, "timestamp")
}

// join encodes the pairs with go-logfmt, quoting as it does; a key it
// cannot encode gives "" (and the pattern is not shown).
func (logfmtTokens) join(tokens []string, _ []int) string {
	if len(tokens)%2 == 1 {
		tokens = append(tokens[:len(tokens):len(tokens)], "")
	}
	var b strings.Builder
	enc := logfmt.NewEncoder(&b)
	for i := 0; i < len(tokens); i += 2 {
		if err := enc.EncodeKeyval(tokens[i], []byte(tokens[i+1])); err != nil {
			return ""
		}
	}
	return b.String()
}

// jsonMessage tokenizes the first of the message fields that holds a
// string (its raw JSON text, escapes kept) with the punctuation rules;
// lines without one are not mined. Patterns are framed by placeholders
// for the rest of the object.
type jsonMessage struct {
	punctuation
	fields []string
}

// defaultJSONFields is Loki's pattern_ingester_tokenizable_json_fields_default.
var defaultJSONFields = []string{"log", "message", "msg", "msg_", "_msg", "content"}

func (t jsonMessage) tokenize(line string) ([]string, []int, bool) {
	for _, f := range t.fields {
		v, typ, _, err := jsonparser.Get([]byte(line), f)
		if err == nil && typ == jsonparser.String {
			return t.punctuation.tokenize(string(v))
		}
	}
	return nil, nil, false
}

func (t jsonMessage) join(tokens []string, spaces []int) string {
	return placeholder + t.punctuation.join(tokens, spaces) + placeholder
}

// collapsePlaceholders turns runs of adjacent placeholders into one.
func collapsePlaceholders(s string) string {
	double := placeholder + placeholder
	if !strings.Contains(s, double) {
		return s
	}
	for strings.Contains(s, double) {
		s = strings.ReplaceAll(s, double, placeholder)
	}
	return s
}
