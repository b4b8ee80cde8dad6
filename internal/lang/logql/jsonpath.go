package logql

import (
	"strconv"
)

// parseJSONPath reads a json parser parameter's path (`a.b[0]["c d"]`)
// into the keys jsonparser looks up, array indexes written `[0]`, with
// the errors of Loki's path grammar: a name or a bracket first, then
// brackets and `.name`s.
func parseJSONPath(expr string) ([]string, error) {
	sc := &exprScanner{s: expr}
	var out []string
	t, text := sc.jsonToken()
	switch t {
	case "FIELD":
		out = append(out, text)
	case "LSB":
		step, err := sc.bracketStep()
		if err != nil {
			return nil, err
		}
		out = append(out, step)
	default:
		return nil, syntaxErr(t, "LSB or FIELD")
	}
	for {
		t, _ := sc.jsonToken()
		var step string
		var err error
		switch t {
		case "$end":
			if sc.err != nil {
				return nil, sc.err
			}
			return out, nil
		case "DOT":
			var f string
			if t, f = sc.jsonToken(); t != "FIELD" {
				return nil, syntaxErr(t, "FIELD")
			}
			step = f
		case "LSB":
			step, err = sc.bracketStep()
		default:
			return nil, syntaxErr(t, "")
		}
		if err != nil {
			return nil, err
		}
		out = append(out, step)
	}
}

// bracketStep reads `"key"]` or `0]` after `[`.
func (sc *exprScanner) bracketStep() (string, error) {
	t, step := sc.jsonToken()
	switch t {
	case "STRING":
	case "INDEX":
		step = "[" + step + "]"
	default:
		return "", syntaxErr(t, "STRING or INDEX")
	}
	if r, _ := sc.jsonToken(); r != "RSB" {
		return "", syntaxErr(r, "RSB")
	}
	return step, nil
}

// jsonToken reads the next token of a json path and its text.
func (sc *exprScanner) jsonToken() (string, string) {
	r := sc.skipBlanks()
	switch {
	case r == 0:
		return "$end", ""
	case r >= '0' && r <= '9':
		sc.unread()
		return sc.index()
	case r == '[':
		return "LSB", ""
	case r == ']':
		return "RSB", ""
	case r == '.':
		return "DOT", ""
	case isExprNameStart(r):
		sc.unread()
		return "FIELD", sc.field()
	case r == '"':
		return "STRING", sc.quoted()
	}
	return sc.fail("unexpected char %c", r), ""
}

// index reads an array index: digits up to a blank, `.` or `]`.
func (sc *exprScanner) index() (string, string) {
	start := sc.i
	for {
		r := sc.read()
		if r == '.' && sc.i-1 > start {
			return sc.fail("cannot use float as array index"), ""
		}
		if r == ' ' || r == '\t' || r == '\n' || r == '.' || r == ']' {
			sc.unread()
			break
		}
		if r < '0' || r > '9' {
			return sc.fail("non-integer value: %c", r), ""
		}
	}
	n, err := strconv.Atoi(sc.s[start:sc.i])
	if err != nil {
		return sc.fail("%s", err.Error()), ""
	}
	return "INDEX", strconv.Itoa(n)
}
