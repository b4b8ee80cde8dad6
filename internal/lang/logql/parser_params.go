package logql

import (
	"strconv"
	"strings"
)

// LabelExtraction is one `name="expression"` parameter of json or logfmt.
type LabelExtraction struct {
	Name       string
	Expression string
	// Path is the json parameter's lookup path.
	Path []string
}

func extractionsString(params []LabelExtraction) string {
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.Name + "=" + strconv.Quote(p.Expression)
	}
	return strings.Join(parts, ",")
}

// JSONParamsExpr is `| json a="b.c", d`.
type JSONParamsExpr struct{ Params []LabelExtraction }

func (e *JSONParamsExpr) String() string { return "| json " + extractionsString(e.Params) }

// LogfmtExpr is `| logfmt` with flags and parameters.
type LogfmtExpr struct {
	Strict, KeepEmpty bool
	Params            []LabelExtraction
}

func (e *LogfmtExpr) String() string {
	s := "| logfmt"
	if e.Strict {
		s += " --strict"
	}
	if e.KeepEmpty {
		s += " --keep-empty"
	}
	if len(e.Params) > 0 {
		s += " " + extractionsString(e.Params)
	}
	return s
}

// parseExtractions reads `a`, `a="b"` items separated by commas, from the
// current token.
func (p *parser) parseExtractions() ([]LabelExtraction, error) {
	var out []LabelExtraction
	for {
		if !p.tok.isName() {
			return nil, p.syntaxError("IDENTIFIER")
		}
		x := LabelExtraction{Name: p.tok.text, Expression: p.tok.text}
		if p.advance().isPunctText("=") {
			if p.advance().kind != tString {
				return nil, p.syntaxError("STRING")
			}
			x.Expression = p.tok.text
			p.advance()
		}
		out = append(out, x)
		if !p.isPunct(",") {
			return out, nil
		}
		p.advance()
	}
}

// parseJSONStage reads `json` and its optional parameters.
func (p *parser) parseJSONStage() (Stage, error) {
	if !p.advance().isName() {
		return &LabelParserExpr{Op: "json"}, nil
	}
	params, err := p.parseExtractions()
	if err != nil {
		return nil, err
	}
	e := &JSONParamsExpr{Params: params}
	for i, x := range params {
		path, err := parseJSONPath(x.Expression)
		if err != nil {
			p.failStage(e, "cannot parse expression ["+x.Expression+"]: "+err.Error())
			return e, nil
		}
		e.Params[i].Path = path
	}
	return e, nil
}

// parseLogfmtStage reads `logfmt`, its flags, then its parameters.
func (p *parser) parseLogfmtStage() (Stage, error) {
	e := &LogfmtExpr{}
	for p.advance().kind == tFlag {
		e.Strict = e.Strict || p.tok.text == "--strict"
		e.KeepEmpty = e.KeepEmpty || p.tok.text == "--keep-empty"
	}
	if p.tok.isName() {
		params, err := p.parseExtractions()
		if err != nil {
			return nil, err
		}
		e.Params = params
	}
	if !e.Strict && !e.KeepEmpty && len(e.Params) == 0 {
		return &LabelParserExpr{Op: "logfmt"}, nil
	}
	for _, x := range e.Params {
		if err := checkLogfmtExpression(x.Expression); err != nil {
			p.failStage(e, "cannot parse expression ["+x.Expression+"]: "+err.Error())
			break
		}
	}
	return e, nil
}
