package logql

import "strings"

// VariantsExpr is `variants(<metric>, ...) of (<log range>)`. Loki parses
// it and, with multi-variant queries off by default, refuses to run it.
type VariantsExpr struct {
	Variants []SampleExpr
	LogRange *LogRange
}

func (*VariantsExpr) sampleExpr() {}

func (e *VariantsExpr) String() string {
	parts := make([]string, len(e.Variants))
	for i, v := range e.Variants {
		parts[i] = v.String()
	}
	return "variants(" + strings.Join(parts, ", ") + ") of (" + e.LogRange.String() + ")"
}

// parseVariants reads the expression after the variants keyword.
func (p *parser) parseVariants() (Expr, error) {
	if !p.isPunct("(") {
		return nil, p.syntaxError("(")
	}
	e := &VariantsExpr{}
	for {
		p.advance()
		v, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		se, ok := v.(SampleExpr)
		if !ok {
			return nil, p.syntaxError()
		}
		e.Variants = append(e.Variants, se)
		if !p.isPunct(",") {
			break
		}
	}
	if !p.isPunct(")") {
		return nil, p.syntaxError()
	}
	if !p.advance().isPunctText("of") && !p.isWord("of") {
		return nil, p.syntaxError("of")
	}
	if !p.advance().isPunctText("(") {
		return nil, p.syntaxError("(")
	}
	p.advance()
	r, err := p.parseLogRangeThenClose()
	if err != nil {
		return nil, err
	}
	e.LogRange = r
	return e, nil
}
