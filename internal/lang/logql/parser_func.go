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
	if name != "variants" && !p.tok.call {
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
	if p.tok.kind != tNumber && !p.isPunct("{") && !p.isPunct("(") {
		return nil, p.syntaxError("NUMBER", "{", "(")
	}
	param := ""
	if p.tok.kind == tNumber {
		param = p.tok.text
		if p.advance(); !p.isPunct(",") {
			return nil, p.syntaxError(",")
		}
		p.advance()
	}
	r, err := p.parseLogRange()
	if err != nil {
		return nil, err
	}
	if !p.isPunct(")") {
		return nil, p.syntaxError(")")
	}
	p.advance()
	g, err := p.parseOptionalGrouping()
	if err != nil {
		return nil, err
	}
	return newRangeAggregation(op, r, g, param), nil
}

// newRangeAggregation checks the parameter, grouping and unwrap as Loki's
// newRangeAggregationExpr does, its errors deferred (see invalidExpr).
func newRangeAggregation(op RangeOp, r *LogRange, g *Grouping, param string) SampleExpr {
	e := &RangeAggregationExpr{Op: op, Left: r, Grouping: g}
	switch {
	case param != "" && !op.TakesParam():
		return invalid(fmt.Sprintf("parameter %s not supported for operation %s", param, op))
	case param != "":
		v, err := strconv.ParseFloat(param, 64)
		if err != nil {
			return invalid(fmt.Sprintf("invalid parameter for operation %s: %s", op, err))
		}
		e.Param = &v
	case op.TakesParam():
		return invalid("parameter required for operation " + op.String())
	}
	if g != nil && !op.TakesGrouping() {
		return invalid(fmt.Sprintf("grouping not allowed for %s aggregation", op))
	}
	switch {
	case r.Unwrap != nil && op.UnwrapRule() == UnwrapForbidden:
		return invalid(fmt.Sprintf("invalid aggregation %s with unwrap", op))
	case r.Unwrap == nil && op.UnwrapRule() == UnwrapRequired:
		return invalid(fmt.Sprintf("invalid aggregation %s without unwrap", op))
	}
	return e
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
		return nil, p.syntaxError("{", "(")
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

// parseLogRangeInParens reads, after an opening parenthesis, a wholly
// parenthesised log range or `(selector [pipeline] [unwrap]) range`,
// where a bare selector may still take an unwrap after the range.
func (p *parser) parseLogRangeInParens() (*LogRange, error) {
	if !p.isPunct("{") {
		return p.parseLogRangeThenClose()
	}
	sel, err := p.parseSelector()
	if err != nil {
		return nil, err
	}
	p.advance()
	stages, u, err := p.parsePipeline(true)
	if err != nil {
		return nil, err
	}
	bare := len(stages) == 0 && u == nil
	r := &LogRange{Left: withPipeline(sel, stages), Unwrap: u}
	if p.tok.kind == tRange {
		return r, p.closeLogRangeInParens(r, sel, bare)
	}
	if !p.isPunct(")") {
		if u != nil {
			return nil, p.syntaxError("RANGE", ")", "|")
		}
		// A range, `)` or any stage could come: too many to list.
		return nil, p.syntaxError()
	}
	if p.advance(); p.tok.kind != tRange {
		return nil, p.syntaxError("RANGE")
	}
	if err := p.parseRangeAndOffset(r); err != nil || !bare || !p.isPunct("|") {
		return r, err
	}
	if p.advance(); !p.isWord("unwrap") {
		return nil, p.syntaxError("unwrap")
	}
	r.Unwrap, err = p.parseUnwrap()
	return r, err
}

// closeLogRangeInParens reads the range of a parenthesised log range,
// the pipeline a bare selector may have after it, and the closing `)`.
func (p *parser) closeLogRangeInParens(r *LogRange, sel *MatchersExpr, bare bool) error {
	if err := p.parseRangeAndOffset(r); err != nil {
		return err
	}
	if bare {
		stages, u, err := p.parsePipeline(true)
		if err != nil {
			return err
		}
		r.Left, r.Unwrap = withPipeline(sel, stages), u
	}
	if !p.isPunct(")") {
		return p.syntaxError(")")
	}
	p.advance()
	return nil
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
	param := ""
	var inner Expr
	if p.tok.kind == tNumber {
		numTok := p.tok
		if p.advance(); p.isPunct(",") {
			param = numTok.text
			p.advance()
		} else {
			lit, err := p.literal(numTok, false)
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
	if !p.isPunct(")") {
		// An operator could continue the operand too.
		return nil, p.syntaxError()
	}
	p.advance()
	if g == nil {
		if g, err = p.parseOptionalGrouping(); err != nil {
			return nil, err
		}
	}
	return newVectorAggregation(op, se, g, param), nil
}

// newVectorAggregation applies Loki's parameter and grouping rules (topk,
// bottomk and approx_topk take a positive integer, the others none;
// approx_topk no grouping), its errors deferred (see invalidExpr).
func newVectorAggregation(op VectorOp, left SampleExpr, g *Grouping, param string) SampleExpr {
	e := &VectorAggregationExpr{Op: op, Left: left, Grouping: g}
	if !op.TakesParam() {
		if param != "" {
			return invalid(fmt.Sprintf("unsupported parameter for operation %s(%s,", op, param))
		}
		return e
	}
	if param == "" {
		return invalid("parameter required for operation " + op.String())
	}
	n, err := strconv.Atoi(param)
	if err != nil {
		return invalid(fmt.Sprintf("invalid parameter %s(%s,", op, param))
	}
	if n <= 0 {
		return invalid(fmt.Sprintf("invalid parameter (must be greater than 0) %s(%s", op, param))
	}
	if g != nil && op.row().grouping == groupingNone {
		return invalid(fmt.Sprintf("grouping not allowed for %s aggregation", op))
	}
	v := float64(n)
	e.Param = &v
	return e
}

func (p *parser) parseVector() (Expr, error) {
	if !p.isPunct("(") {
		return nil, p.syntaxError("(")
	}
	if p.advance().kind != tNumber {
		return nil, p.syntaxError("NUMBER")
	}
	num := p.tok.text
	if p.advance(); !p.isPunct(")") {
		return nil, p.syntaxError(")")
	}
	p.advance()
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return invalid("unable to parse vectorExpr as a float: " + err.Error()), nil
	}
	return &VectorExpr{Val: v}, nil
}
