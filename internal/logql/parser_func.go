package logql

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseFunction reads a function call; an identifier that is no function
// is a syntax error, as in Loki.
func (p *parser) parseFunction() (Expr, error) {
	name := strings.ToLower(p.tok.text)
	if name != "variants" && !p.isCall() {
		// Loki's lexer reads a function name not followed by a call as
		// an identifier.
		return nil, p.syntaxError()
	}
	if op, ok := LookupRangeOp(name); ok {
		p.advance()
		return p.parseRangeAgg(op)
	}
	if op, ok := LookupVectorOp(name); ok {
		p.advance()
		return p.parseVectorAgg(op)
	}
	switch {
	case name == "vector":
		p.advance()
		return p.parseVector()
	case name == "label_replace":
		p.advance()
		return p.parseLabelReplace()
	case name == "variants":
		p.advance()
		return p.parseVariants()
	}
	return nil, p.syntaxError()
}

func (p *parser) parseRangeAgg(op RangeOp) (Expr, error) {
	if !p.isPunct("(") {
		return nil, p.syntaxError("(")
	}
	p.advance()
	e := &RangeAggregationExpr{Op: op}
	var err error
	if p.tok.kind != tNumber && !p.isPunct("{") && !p.isPunct("(") {
		return nil, p.syntaxError("NUMBER", "{", "(")
	}
	if p.tok.kind == tNumber {
		raw := p.tok.text
		if e.Param, err = p.parseParam(); err != nil {
			if pe, ok := err.(*ParseError); ok && strings.HasPrefix(pe.Msg, "unable to parse literal as a float: ") {
				return nil, &ParseError{Msg: "invalid parameter for operation " + op.String() + ": " + strings.TrimPrefix(pe.Msg, "unable to parse literal as a float: ")}
			}
			return nil, err
		}
		if !op.TakesParam() {
			return nil, &ParseError{Msg: fmt.Sprintf("parameter %s not supported for operation %s", raw, op)}
		}
	} else if op.TakesParam() {
		return nil, &ParseError{Msg: "parameter required for operation " + op.String()}
	}
	r, err := p.parseLogRange()
	if err != nil {
		return nil, err
	}
	e.Left = r
	if !p.isPunct(")") {
		return nil, p.syntaxError(")")
	}
	p.advance()
	if e.Grouping, err = p.parseOptionalGrouping(); err != nil {
		return nil, err
	}
	return e, nil
}

// parseLogRange reads `{...} pipeline [| unwrap ...] [range] [offset d]`,
// the range also allowed right after the selector and the whole possibly
// parenthesised.
func (p *parser) parseLogRange() (*LogRange, error) {
	if p.isPunct("(") {
		p.advance()
		return p.parseLogRangeInParens()
	}
	if !p.isPunct("{") {
		return nil, p.syntaxError("{")
	}
	sel, err := p.parseSelector()
	if err != nil {
		return nil, err
	}
	p.advance()
	r := &LogRange{}
	var stages []Stage
	if p.tok.kind == tRange {
		if err := p.parseRangeAndOffset(r); err != nil {
			return nil, err
		}
		if stages, r.Unwrap, err = p.parsePipeline(true); err != nil {
			return nil, err
		}
	} else {
		if stages, r.Unwrap, err = p.parsePipeline(true); err != nil {
			return nil, err
		}
		if err := p.expectRange(r.Unwrap != nil); err != nil {
			return nil, err
		}
		if err := p.parseRangeAndOffset(r); err != nil {
			return nil, err
		}
	}
	r.Left = withPipeline(sel, stages)
	return r, nil
}

// expectRange fails unless a range comes next; after an unwrap, a further
// `|` filter could also have come.
func (p *parser) expectRange(afterUnwrap bool) error {
	switch {
	case p.tok.kind == tRange:
		return nil
	case afterUnwrap:
		return p.syntaxError("RANGE", "|")
	}
	return p.syntaxError()
}

// parseLogRangeThenClose reads a log range and the `)` closing it.
func (p *parser) parseLogRangeThenClose() (*LogRange, error) {
	r, err := p.parseLogRange()
	if err != nil {
		return nil, err
	}
	if !p.isPunct(")") {
		return nil, p.syntaxError(")")
	}
	p.advance()
	return r, nil
}

// parseLogRangeInParens reads `(selector pipeline) [range]` or a wholly
// parenthesised log range.
func (p *parser) parseLogRangeInParens() (*LogRange, error) {
	if !p.isPunct("{") {
		return p.parseLogRangeThenClose()
	}
	left, u, err := p.parseLogExpr(true)
	if err != nil {
		return nil, err
	}
	r := &LogRange{Left: left, Unwrap: u}
	if p.tok.kind == tRange {
		// ( selector pipeline [range] ): the whole log range in parentheses.
		if err := p.parseRangeAndOffset(r); err != nil {
			return nil, err
		}
		if !p.isPunct(")") {
			return nil, p.syntaxError(")")
		}
		p.advance()
		return r, nil
	}
	if !p.isPunct(")") {
		if u != nil {
			return nil, p.syntaxError("RANGE", "|")
		}
		return nil, p.syntaxError(")")
	}
	p.advance()
	if p.tok.kind != tRange {
		return nil, p.syntaxError("RANGE")
	}
	return r, p.parseRangeAndOffset(r)
}

func (p *parser) parseRangeAndOffset(r *LogRange) error {
	d, err := parseRangeDuration(p.tok.text)
	if err != nil {
		return &ParseError{Msg: err.Error(), Line: p.tok.line, Col: p.tok.col}
	}
	r.Interval = d
	p.advance()
	if p.tok.kind == tIdent && strings.EqualFold(p.tok.text, "offset") {
		p.advance()
		if r.Offset, err = p.parseDurationTokens(); err != nil {
			return err
		}
	}
	return nil
}

// parseDurationTokens reads a duration such as 5m, which the scanner splits
// into a number and an adjacent identifier.
func (p *parser) parseDurationTokens() (time.Duration, error) {
	switch t := p.tok; t.kind {
	case tDuration:
		d, err := parseLokiDuration(t.text)
		if err != nil {
			return 0, &ParseError{Msg: err.Error()}
		}
		p.advance()
		return d, nil
	case tNumber:
		return 0, &ParseError{Msg: "syntax error: unexpected NUMBER, expecting DURATION", Line: t.line, Col: t.col}
	}
	return 0, p.syntaxError("DURATION")
}

func (p *parser) parseOptionalGrouping() (*Grouping, error) {
	if p.tok.kind != tIdent {
		return nil, nil
	}
	kw := strings.ToLower(p.tok.text)
	if kw != "by" && kw != "without" {
		return nil, nil
	}
	p.advance()
	labels, err := p.parseLabelList()
	if err != nil {
		return nil, err
	}
	return &Grouping{Groups: labels, Without: kw == "without"}, nil
}

func (p *parser) parseVectorAgg(op VectorOp) (Expr, error) {
	g, err := p.parseOptionalGrouping()
	if err != nil {
		return nil, err
	}
	if !p.isPunct("(") {
		return nil, p.syntaxError("(")
	}
	p.advance()
	e := &VectorAggregationExpr{Op: op, Grouping: g}
	var inner Expr
	if p.tok.kind == tNumber {
		numTok := p.tok
		p.advance()
		if p.isPunct(",") {
			p.advance()
			if err := checkVectorParam(op, numTok.text, g); err != nil {
				return nil, err
			}
			lit, err := p.parseNumber(numTok)
			if err != nil {
				return nil, err
			}
			e.Param = &lit.Val
		} else {
			lit, err := p.parseNumber(numTok)
			if err != nil {
				return nil, err
			}
			if inner, err = p.continueExpr(lit, 0); err != nil {
				return nil, err
			}
		}
	}
	if inner == nil {
		if inner, err = p.parseExpr(0); err != nil {
			return nil, err
		}
	}
	se, ok := inner.(SampleExpr)
	if _, variants := inner.(*VariantsExpr); !ok || variants {
		// variants(...) of (...) is no operand of an aggregation.
		return nil, p.syntaxError()
	}
	e.Left = se
	if !p.isPunct(")") {
		// An operator could continue the operand too.
		return nil, p.syntaxError()
	}
	p.advance()
	if e.Grouping == nil {
		if e.Grouping, err = p.parseOptionalGrouping(); err != nil {
			return nil, err
		}
	}
	if e.Param == nil && op.TakesParam() {
		return nil, &ParseError{Msg: "parameter required for operation " + op.String()}
	}
	if e.Grouping != nil {
		if err := groupingAllowed(op); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// checkVectorParam applies Loki's parameter rules: topk, bottomk and
// approx_topk take a positive integer, the others none.
func checkVectorParam(op VectorOp, raw string, g *Grouping) error {
	if !op.TakesParam() {
		return &ParseError{Msg: fmt.Sprintf("unsupported parameter for operation %s(%s,", op, raw)}
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return &ParseError{Msg: fmt.Sprintf("invalid parameter %s(%s,", op, raw)}
	}
	if n <= 0 {
		return &ParseError{Msg: fmt.Sprintf("invalid parameter (must be greater than 0) %s(%s", op, raw)}
	}
	if g != nil {
		return groupingAllowed(op)
	}
	return nil
}

// groupingAllowed fails for an aggregation refusing any by/without
// (approx_topk), as Loki's parser does.
func groupingAllowed(op VectorOp) error {
	if op.row().grouping == groupingNone {
		return &ParseError{Msg: fmt.Sprintf("grouping not allowed for %s aggregation", op)}
	}
	return nil
}

func (p *parser) parseVector() (Expr, error) {
	if !p.isPunct("(") {
		return nil, p.syntaxError("(")
	}
	if p.advance().kind != tNumber {
		return nil, p.syntaxError("NUMBER")
	}
	lit, err := p.parseNumber(p.tok)
	if err != nil {
		return nil, err
	}
	if p.advance(); !p.isPunct(")") {
		return nil, p.syntaxError(")")
	}
	p.advance()
	return &VectorExpr{Val: lit.Val}, nil
}

// parseParam reads a function's leading `NUMBER ,`.
func (p *parser) parseParam() (*float64, error) {
	lit, err := p.parseNumber(p.tok)
	if err != nil {
		return nil, err
	}
	if p.advance(); !p.isPunct(",") {
		return nil, p.syntaxError(",")
	}
	p.advance()
	return &lit.Val, nil
}
