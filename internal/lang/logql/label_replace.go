package logql

import (
	"strconv"

	"github.com/grafana/regexp"
)

// LabelReplaceExpr is `label_replace(<metric>, "dst", "replacement", "src",
// "regex")`.
type LabelReplaceExpr struct {
	Left        SampleExpr
	Dst         string
	Replacement string
	Src         string
	Regex       string
	// Re is the regex anchored at both ends, as Prometheus applies it.
	Re *regexp.Regexp
}

func (*LabelReplaceExpr) sampleExpr() {}

func (e *LabelReplaceExpr) String() string {
	return "label_replace(" + e.Left.String() + "," + strconv.Quote(e.Dst) + "," + strconv.Quote(e.Replacement) + "," +
		strconv.Quote(e.Src) + "," + strconv.Quote(e.Regex) + ")"
}

// parseLabelReplace reads the call after its name.
func (p *parser) parseLabelReplace() (Expr, error) {
	if !p.isPunct("(") {
		return nil, p.syntaxError("(")
	}
	p.advance()
	inner, err := p.parseExpr(0)
	if err != nil {
		return nil, err
	}
	se, ok := inner.(SampleExpr)
	if !ok {
		return nil, p.syntaxError()
	}
	e := &LabelReplaceExpr{Left: se}
	for _, dst := range []*string{&e.Dst, &e.Replacement, &e.Src, &e.Regex} {
		if !p.isPunct(",") {
			if dst == &e.Dst {
				return nil, p.syntaxError()
			}
			return nil, p.syntaxError(",")
		}
		if p.advance().kind != tString {
			return nil, p.syntaxError("STRING")
		}
		*dst = p.tok.text
		p.advance()
	}
	if !p.isPunct(")") {
		return nil, p.syntaxError(")")
	}
	p.advance()
	if e.Re, err = regexp.Compile("^(?:" + e.Regex + ")$"); err != nil {
		// Loki defers the error (see invalidExpr).
		return invalid("invalid regex in label_replace: " + err.Error()), nil
	}
	return e, nil
}
