package logql

import (
	"strconv"
	"strings"
)

// parseJSONPath reads a json parser parameter's path (`a.b[0]["c d"]`)
// into the keys jsonparser looks up, array indexes written `[0]`. Errors
// read as Loki's path grammar words them.
func parseJSONPath(expr string) ([]string, error) {
	toks, err := jsonPathTokens(expr)
	if err != nil {
		return nil, err
	}
	var out []string
	i := 0
	next := func() jsonPathToken { t := toks[i]; i++; return t }
	bad := func(t jsonPathToken, expecting string) error {
		return &pathError{"syntax error: unexpected " + t.kind + ", expecting " + expecting}
	}
	first := true
	for {
		t := next()
		var step string
		var err error
		switch {
		case t.kind == "$end" && !first:
			return out, nil
		case t.kind == "FIELD" && first:
			step = t.text
		case t.kind == "DOT" && !first:
			f := next()
			if f.kind != "FIELD" {
				return nil, bad(f, "FIELD")
			}
			step = f.text
		case t.kind == "LSB":
			step, err = bracketStep(next)
		case first:
			return nil, bad(t, "LSB or FIELD")
		default:
			return nil, &pathError{"syntax error: unexpected " + t.kind}
		}
		if err != nil {
			return nil, err
		}
		out, first = append(out, step), false
	}
}

// bracketStep reads `"key"]` or `0]` after `[`.
func bracketStep(next func() jsonPathToken) (string, error) {
	t := next()
	step := t.text
	switch t.kind {
	case "STRING":
	case "INDEX":
		step = "[" + t.text + "]"
	default:
		return "", &pathError{"syntax error: unexpected " + t.kind + ", expecting STRING or INDEX"}
	}
	if r := next(); r.kind != "RSB" {
		return "", &pathError{"syntax error: unexpected " + r.kind + ", expecting RSB"}
	}
	return step, nil
}

type pathError struct{ msg string }

func (e *pathError) Error() string { return e.msg }

type jsonPathToken struct{ kind, text string }

func jsonPathTokens(s string) ([]jsonPathToken, error) {
	var out []jsonPathToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(s[i:j])
			out = append(out, jsonPathToken{"INDEX", strconv.Itoa(n)})
			i = j
		case c == '[':
			out, i = append(out, jsonPathToken{"LSB", ""}), i+1
		case c == ']':
			out, i = append(out, jsonPathToken{"RSB", ""}), i+1
		case c == '.':
			out, i = append(out, jsonPathToken{"DOT", ""}), i+1
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out, i = append(out, jsonPathToken{"FIELD", s[i:j]}), j
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, &pathError{"syntax error: unexpected $end"}
			}
			out, i = append(out, jsonPathToken{"STRING", s[i+1 : i+1+j]}), i+j+2
		default:
			return nil, &pathError{"unexpected char " + string(rune(c))}
		}
	}
	return append(out, jsonPathToken{"$end", ""}), nil
}
