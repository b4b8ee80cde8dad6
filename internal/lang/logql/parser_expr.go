package logql

import (
	"fmt"
	"strconv"
	"strings"
)

// binOp returns the current token as a binary operator, if it is one: a
// punctuation, or a set operator's word.
func (p *parser) binOp() (BinaryOp, bool) {
	t := p.tok
	if t.kind != tPunct && t.kind != tIdent {
		return 0, false
	}
	op, ok := LookupBinaryOp(strings.ToLower(t.text))
	if !ok || (t.kind == tIdent && !op.IsSet()) {
		return 0, false
	}
	return op, true
}

// parseExpr is a precedence climber over primaries; ^ is right-associative.
func (p *parser) parseExpr(minPrec int) (Expr, error) {
	lhs, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	return p.continueExpr(lhs, minPrec)
}

// continueExpr climbs binary operators after an already parsed operand.
func (p *parser) continueExpr(lhs Expr, minPrec int) (Expr, error) {
	for {
		op, ok := p.binOp()
		if !ok || op.row().prec < minPrec {
			return lhs, nil
		}
		p.advance()
		be, err := p.parseBinModifiers(op)
		if err != nil {
			return nil, err
		}
		next := op.row().prec + 1
		if op.row().rightAssoc {
			next = op.row().prec
		}
		rhs, err := p.parseExpr(next)
		if err != nil {
			return nil, err
		}
		lhs = newBinOp(be, lhs, rhs)
	}
}

// parseBinModifiers reads `bool`, `on(...)` and `ignoring(...)`.
func (p *parser) parseBinModifiers(op BinaryOp) (*BinOpExpr, error) {
	be := &BinOpExpr{Op: op}
	if p.tok.kind == tIdent && strings.EqualFold(p.tok.text, "bool") {
		be.ReturnBool = true
		p.advance()
	}
	if p.tok.kind == tIdent && (strings.EqualFold(p.tok.text, "on") || strings.EqualFold(p.tok.text, "ignoring")) {
		on := strings.EqualFold(p.tok.text, "on")
		p.advance()
		labels, err := p.parseLabelList()
		if err != nil {
			return nil, err
		}
		be.Matching = &VectorMatching{On: on, Labels: labels}
	}
	if p.isWord("group_left") || p.isWord("group_right") {
		if be.Matching == nil {
			return nil, p.syntaxError()
		}
		be.Matching.Card = ManyToOne
		if p.isWord("group_right") {
			be.Matching.Card = OneToMany
		}
		if p.advance(); p.isPunct("(") {
			include, err := p.parseLabelList()
			if err != nil {
				return nil, err
			}
			if len(include) > 0 {
				be.Matching.Include = include
			}
		}
	}
	return be, nil
}

// newBinOp builds lhs op rhs as Loki's mustNewBinOpExpr does: any
// expression is an operand to the grammar, and a wrong one (a log query,
// a number beside a set operator) makes a node carrying the error.
func newBinOp(be *BinOpExpr, lhs, rhs Expr) Expr {
	l, lok := lhs.(SampleExpr)
	r, rok := rhs.(SampleExpr)
	if !lok {
		return invalid("unexpected type for left leg of binary operation (" + be.Op.String() + "): " + lokiTypeName(lhs))
	}
	if !rok {
		return invalid("unexpected type for right leg of binary operation (" + be.Op.String() + "): " + lokiTypeName(rhs))
	}
	for _, leg := range []SampleExpr{l, r} {
		if bad, ok := leg.(*invalidExpr); ok && bad.literal {
			return &invalidExpr{err: bad.err}
		}
	}
	be.LHS, be.RHS = l, r
	if be.Op.IsSet() {
		if lit, ok := l.(*LiteralExpr); ok {
			return invalid(fmt.Sprintf("unexpected literal for left leg of logical/set binary operation (%s): %f", be.Op, lit.Val))
		}
		if lit, ok := r.(*LiteralExpr); ok {
			return invalid(fmt.Sprintf("unexpected literal for right leg of logical/set binary operation (%s): %f", be.Op, lit.Val))
		}
	}
	ll, lLit := l.(*LiteralExpr)
	rl, rLit := r.(*LiteralExpr)
	if lLit && rLit {
		if v, ok := foldLiterals(be.Op, ll.Val, rl.Val); ok {
			return &LiteralExpr{Val: v}
		}
	}
	return be
}

// parsePrimary reads a selector, number, function call or parenthesised
// expression.
func (p *parser) parsePrimary() (Expr, error) {
	t := p.tok
	switch {
	case t.kind == tPunct && t.text == "{":
		e, _, err := p.parseLogExpr(false)
		return e, err
	case t.kind == tNumber:
		p.advance()
		return p.literal(t, false)
	case t.kind == tPunct && (t.text == "-" || t.text == "+"):
		n := p.advance()
		if n.kind != tNumber {
			return nil, p.syntaxError("NUMBER")
		}
		p.advance()
		return p.literal(n, t.text == "-")
	case t.kind == tPunct && t.text == "(":
		p.advance()
		e, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		if !p.isPunct(")") {
			// An operator could continue the expression too.
			return nil, p.syntaxError()
		}
		p.advance()
		return e, nil
	case t.kind == tIdent:
		return p.parseFunction()
	}
	return nil, p.syntaxError()
}

// literal is a number operand; one strconv cannot read is an error Loki
// defers (see invalidExpr).
func (p *parser) literal(t token, negate bool) (SampleExpr, error) {
	if p.lex.err != nil {
		return nil, p.lex.err
	}
	v, err := strconv.ParseFloat(t.text, 64)
	if err != nil {
		return &invalidExpr{err: &ParseError{Msg: "unable to parse literal as a float: " + err.Error()}, literal: true}, nil
	}
	if negate {
		v = -v
	}
	return &LiteralExpr{Val: v}, nil
}

func (p *parser) isPunct(s string) bool { return p.tok.kind == tPunct && p.tok.text == s }

// parseLogExpr reads a selector and its pipeline, which may end in an
// unwrap when the expression is the inside of a log range.
func (p *parser) parseLogExpr(allowUnwrap bool) (LogSelectorExpr, *UnwrapExpr, error) {
	sel, err := p.parseSelector()
	if err != nil {
		return nil, nil, err
	}
	p.advance()
	stages, u, err := p.parsePipeline(allowUnwrap)
	if err != nil {
		return nil, nil, err
	}
	return withPipeline(sel, stages), u, nil
}

func withPipeline(sel *MatchersExpr, stages []Stage) LogSelectorExpr {
	if len(stages) == 0 {
		return sel
	}
	return &PipelineExpr{Left: sel, Pipeline: stages}
}

// parseLabelList reads `(a, b, c)`, possibly empty.
func (p *parser) parseLabelList() ([]string, error) {
	if !p.isPunct("(") {
		return nil, p.syntaxError("(")
	}
	labels := []string{}
	p.advance()
	if !p.isPunct(")") && !p.tok.isName() {
		return nil, p.syntaxError("IDENTIFIER", ")")
	}
	for !p.isPunct(")") {
		if !p.tok.isName() {
			return nil, p.syntaxError("IDENTIFIER")
		}
		labels = append(labels, p.tok.text)
		p.advance()
		if p.isPunct(",") {
			if p.advance(); !p.tok.isName() {
				return nil, p.syntaxError("IDENTIFIER")
			}
		} else if !p.isPunct(")") {
			return nil, p.syntaxError(",", ")")
		}
	}
	p.advance()
	return labels, nil
}

// lokiTypeName is how Loki's errors name a log expression's Go type.
func lokiTypeName(e Expr) string {
	if _, ok := e.(*MatchersExpr); ok {
		return "*syntax.MatchersExpr"
	}
	return "*syntax.PipelineExpr"
}
