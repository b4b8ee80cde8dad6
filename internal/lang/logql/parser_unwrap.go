package logql

import "strings"

// unwrapConversions are the functions `| unwrap` may apply to its label.
var unwrapConversions = map[string]bool{"bytes": true, "duration": true, "duration_seconds": true}

// parseUnwrap reads `unwrap label`, `unwrap conv(label)` and the label
// filters after it, from the unwrap token.
func (p *parser) parseUnwrap() (*UnwrapExpr, error) {
	t := p.advance()
	u := &UnwrapExpr{}
	conv := strings.ToLower(t.text)
	switch {
	case t.call && unwrapConversions[conv]:
		if !p.advance().isPunctText("(") {
			return nil, p.syntaxError("(")
		}
		if !p.advance().isName() {
			return nil, p.syntaxError("IDENTIFIER")
		}
		u.Operation, u.Identifier = conv, p.tok.text
		if !p.advance().isPunctText(")") {
			return nil, p.syntaxError(")")
		}
	case t.isName():
		u.Identifier = t.text
	default:
		return nil, p.syntaxError("IDENTIFIER", "BYTES_CONV", "DURATION_CONV", "DURATION_SECONDS_CONV")
	}
	for p.advance(); p.isPunct("|"); {
		if p.advance(); !p.tok.isName() && !p.isPunct("(") {
			return nil, p.syntaxError("IDENTIFIER", "(")
		}
		f, err := p.parseLabelFilter(1)
		if err != nil {
			return nil, err
		}
		u.PostFilters = append(u.PostFilters, f)
	}
	return u, p.lex.errOrNil()
}
