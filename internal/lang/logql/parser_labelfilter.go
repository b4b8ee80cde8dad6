package logql

import (
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
)

func strconvQuote(s string) string { return strconv.Quote(s) }

// parseLabelFilter reads a label filter with the grouping Loki's grammar
// gives it: `and` binds tighter than `or`, both left-associative, while a
// comma or plain juxtaposition takes everything to its right as its right
// operand (yacc shifts on them: `a, b or c` is a and (b or c)).
func (p *parser) parseLabelFilter(minPrec int) (LabelFilter, error) {
	left, err := p.parseLabelFilterPrimary()
	if err != nil {
		return nil, err
	}
	for {
		if p.isPunct(",") || p.startsLabelFilter() {
			if p.isPunct(",") {
				if p.advance(); !p.startsLabelFilter() {
					return nil, p.syntaxError("IDENTIFIER", "(")
				}
			}
			right, err := p.parseLabelFilter(1)
			if err != nil {
				return nil, err
			}
			return &BinaryLabelFilter{And: true, Left: left, Right: right}, nil
		}
		prec := p.labelFilterOpPrec()
		if prec == 0 || prec < minPrec {
			return left, nil
		}
		if p.advance(); !p.startsLabelFilter() {
			return nil, p.syntaxError("IDENTIFIER", "(")
		}
		right, err := p.parseLabelFilter(prec + 1)
		if err != nil {
			return nil, err
		}
		left = &BinaryLabelFilter{And: prec == 2, Left: left, Right: right}
	}
}

// labelFilterOpPrec is 1 for `or`, 2 for `and`, 0 otherwise.
func (p *parser) labelFilterOpPrec() int {
	if p.tok.kind != tIdent {
		return 0
	}
	switch strings.ToLower(p.tok.text) {
	case "or":
		return 1
	case "and":
		return 2
	}
	return 0
}

// startsLabelFilter reports a token that begins another label filter.
func (p *parser) startsLabelFilter() bool {
	return p.isPunct("(") || p.tok.isName()
}

// compareOps are the operators between a label and its value.
var compareOps = map[string]bool{"=": true, "==": true, "!=": true, "=~": true, "!~": true, ">": true, ">=": true, "<": true, "<=": true}

var stringFilterOps = map[string]MatchType{"=": MatchEqual, "==": MatchEqual, "!=": MatchNotEqual, "=~": MatchRegexp, "!~": MatchNotRegexp}

func (p *parser) parseLabelFilterPrimary() (LabelFilter, error) {
	if p.isPunct("(") {
		if p.advance(); !p.startsLabelFilter() {
			return nil, p.syntaxError("IDENTIFIER", "(")
		}
		f, err := p.parseLabelFilter(1)
		if err != nil {
			return nil, err
		}
		if !p.isPunct(")") {
			return nil, p.syntaxError()
		}
		p.advance()
		return f, nil
	}
	if !p.tok.isName() {
		return nil, p.syntaxError()
	}
	name := p.tok.text
	op := p.advance()
	t, ok := stringFilterOps[op.text]
	if op.kind != tPunct || !compareOps[op.text] {
		return nil, p.syntaxError()
	}
	v := p.advance()
	if (op.text == "=~" || op.text == "!~") && v.kind != tString {
		return nil, p.syntaxError("STRING")
	}
	sign := ""
	if (v.kind == tPunct && (v.text == "-" || v.text == "+")) && op.text != "=~" && op.text != "!~" {
		sign = v.text
		if v = p.advance(); v.kind != tNumber {
			return nil, p.syntaxError("NUMBER")
		}
	}
	if (v.kind == tNumber || v.kind == tDuration || v.kind == tBytes) && op.text != "=~" && op.text != "!~" {
		return p.parseCompareFilter(name, op.text, sign)
	}
	if v.kind == tIdent && v.call && strings.EqualFold(v.text, "ip") {
		if op.text != "=" && op.text != "!=" {
			return nil, p.syntaxError()
		}
		return p.parseIPLabelFilter(name, op.text == "!=")
	}
	if v.kind != tString || !ok || op.text == "==" {
		return nil, p.syntaxError()
	}
	p.advance()
	f, err := newStringLabelFilter(t, name, v.text)
	if err != nil {
		return nil, &ParseError{Msg: err.Error()}
	}
	return f, nil
}

// parseCompareFilter reads the literal of a numeric, duration or bytes
// filter: Loki's lexer joins a number with the unit characters after it.
func (p *parser) parseCompareFilter(name, op, sign string) (LabelFilter, error) {
	t := p.tok
	f := &CompareLabelFilter{Name: name, Op: op, Text: sign + t.text}
	switch t.kind {
	case tDuration:
		d, err := parseLokiDuration(t.text)
		if err != nil {
			return nil, p.syntaxError()
		}
		f.Kind, f.Duration = DurationValue, d
	case tBytes:
		b, err := humanize.ParseBytes(t.text)
		if err != nil {
			return nil, p.syntaxError()
		}
		f.Kind, f.Bytes = BytesValue, b
	default:
		// Loki ignores the conversion error here: a literal ParseFloat
		// refuses (0x10) compares as 0.
		n, _ := strconv.ParseFloat(strings.TrimPrefix(sign, "+")+t.text, 64)
		f.Kind, f.Number = NumberValue, n
	}
	p.advance()
	return f, nil
}

// parseIPLabelFilter reads the ip("...") of `name = ip("...")`.
func (p *parser) parseIPLabelFilter(name string, negate bool) (LabelFilter, error) {
	pattern, err := p.parseIPCall()
	if err != nil {
		return nil, err
	}
	p.advance()
	f := &IPLabelFilter{Name: name, Negate: negate, IP: &IPMatcher{Pattern: pattern}}
	m, err := NewIPMatcher(pattern)
	if err != nil {
		f.patternErr = err.Error()
		return f, nil
	}
	f.IP = m
	return f, nil
}
