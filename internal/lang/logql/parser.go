package logql

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vloki/vloki/internal/lang/logql/pattern"
)

// ParseExpr parses and validates a query as Loki's syntax.ParseExpr does.
// Dashboards send the same queries again and again: a text parsed before
// gives the same expression, shared (expressions are never changed once
// parsed: later layers build their own plans and copies).
func ParseExpr(input string) (Expr, error) {
	parses.Add(1)
	if p, ok := parsedCache.Load(input); ok {
		return p.(parsed).e, p.(parsed).err
	}
	e, err := parseValidated(input)
	if parsedCount.Add(1) > maxCachedParses {
		parsedCache.Clear()
		parsedCount.Store(0)
	}
	parsedCache.Store(input, parsed{e, err})
	return e, err
}

// parsed is a text's parse, kept in parsedCache.
type parsed struct {
	e   Expr
	err error
}

// maxCachedParses bounds parsedCache (dropped whole past it), as the
// regexp cache is bounded.
const maxCachedParses = 4096

var (
	parsedCache sync.Map // query text → parsed
	parsedCount atomic.Int32
)

// parseValidated parses and validates a query, then reports the stage
// Loki would fail to build (see firstStageError).
func parseValidated(input string) (Expr, error) {
	e, failed, err := parseStrict(input)
	if err == nil {
		err = validate(e)
	}
	if err == nil {
		err = firstStageError(e, failed)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// parseUnvalidated parses without Loki's validation; a stage that fails
// to build is still an error.
func parseUnvalidated(input string) (Expr, error) {
	e, failed, err := parseStrict(input)
	if err == nil {
		err = firstStageError(e, failed)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

func parseStrict(input string) (Expr, []stageFailure, error) {
	if len(input) >= maxInputSize {
		return nil, nil, &ParseError{Msg: fmt.Sprintf("input size too long (%d > %d)", len(input), maxInputSize)}
	}
	p := &parser{lex: newLexer(input)}
	e, err := parseWith(p)
	return e, p.failed, err
}

// ParseForFormat parses a query as Loki's format_query does: stages whose
// construction fails still print, and the matchers are validated.
func ParseForFormat(input string) (Expr, error) {
	if len(input) >= maxInputSize {
		return nil, &ParseError{Msg: fmt.Sprintf("input size too long (%d > %d)", len(input), maxInputSize)}
	}
	e, err := parseWith(&parser{lex: newLexer(input), lenient: true})
	if err != nil {
		return nil, err
	}
	if se, ok := e.(SampleExpr); ok {
		err = validateSample(se, true)
	} else {
		err = validate(e)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// parses counts the queries asked to be parsed (ParseExpr, validated or
// not): a test holds each request to one.
var parses atomic.Uint64

// Parses is how many queries were asked to be parsed so far.
func Parses() uint64 { return parses.Load() }

func parseWith(p *parser) (Expr, error) {
	defer p.lex.release()
	p.advance()
	e, err := p.parseExpr(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.syntaxError()
	}
	return e, nil
}

// ParseLogSelector parses a log query; with validate the whole query is
// checked first, as Loki's ParseExpr checks it.
func ParseLogSelector(input string, validate bool) (LogSelectorExpr, error) {
	e, err := parseMaybeValidated(input, validate)
	if err != nil {
		return nil, err
	}
	sel, ok := e.(LogSelectorExpr)
	if !ok {
		return nil, &QueryKindError{Msg: "only log selector is supported"}
	}
	return sel, nil
}

// ParseMatchers parses a selector with no pipeline, as Loki's endpoints
// that take only label matchers do (labels, label values, series, volume,
// index stats, detected labels, patterns): with validate, the whole query
// is checked first, as ParseExpr checks it.
func ParseMatchers(input string, validate bool) ([]*Matcher, error) {
	e, err := parseMaybeValidated(input, validate)
	if err != nil {
		return nil, err
	}
	sel, ok := e.(LogSelectorExpr)
	if !ok || len(sel.Stages()) > 0 {
		return nil, &QueryKindError{Msg: "only label matchers are supported"}
	}
	return sel.Matchers(), nil
}

func parseMaybeValidated(input string, validate bool) (Expr, error) {
	if validate {
		return ParseExpr(input)
	}
	parses.Add(1)
	return parseUnvalidated(input)
}

// validateMatchers requires a matcher that cannot match the empty string.
func validateMatchers(ms []*Matcher) error {
	for _, m := range ms {
		if !m.Matches("") {
			return nil
		}
	}
	return &ParseError{Msg: errAtLeastOneMatcher}
}

type parser struct {
	lex *lexer
	tok token
	// lenient keeps stages whose construction fails (format_query).
	lenient bool
	// failed are the stages whose construction failed, in source order.
	failed []stageFailure
}

func (p *parser) advance() token {
	p.tok = p.lex.next()
	return p.tok
}

// syntaxError formats yacc's message for the current token.
func (p *parser) syntaxError(expecting ...string) error {
	if p.lex.err != nil {
		return p.lex.err
	}
	msg := "syntax error: unexpected " + p.tokenName()
	if len(expecting) > 0 {
		msg += ", expecting " + strings.Join(expecting, " or ")
	}
	return &ParseError{Msg: msg, Line: p.tok.line, Col: p.tok.col}
}

// functionTokenNames are how Loki's errors name a function name that is
// called (followed by `(`); elsewhere it is an IDENTIFIER. An aggregation
// is named in upper case.
var functionTokenNames = tokenNames(map[string]string{
	"vector": "VECTOR", "bytes": "BYTES_CONV", "duration": "DURATION_CONV",
	"duration_seconds": "DURATION_SECONDS_CONV", "label_replace": "label_replace", "ip": "ip",
})

// tokenNames adds the aggregations' names to the other functions'.
func tokenNames(others map[string]string) map[string]string {
	for _, op := range RangeOps() {
		others[op.String()] = strings.ToUpper(op.String())
	}
	for _, op := range VectorOps() {
		others[op.String()] = strings.ToUpper(op.String())
	}
	return others
}

// tokenName names the current token as Loki's errors do.
func (p *parser) tokenName() string { return p.tok.name() }

// parseSelector reads `{name op "value", ...}` after the opening brace.
func (p *parser) parseSelector() (*MatchersExpr, error) {
	sel := &MatchersExpr{}
	if t := p.advance(); t.kind == tPunct && t.text == "}" {
		return sel, nil
	} else if !t.isName() {
		return nil, p.syntaxError("IDENTIFIER", "}")
	}
	for {
		m, err := p.parseMatcher()
		if err != nil {
			return nil, err
		}
		sel.Mts = append(sel.Mts, m)
		switch t := p.advance(); {
		case t.kind == tPunct && t.text == "}":
			return sel, nil
		case t.kind == tPunct && t.text == ",":
			if !p.advance().isName() {
				return nil, p.syntaxError("IDENTIFIER")
			}
		default:
			return nil, p.syntaxError("}", ",")
		}
	}
}

var matchOps = map[string]MatchType{"=": MatchEqual, "!=": MatchNotEqual, "=~": MatchRegexp, "!~": MatchNotRegexp}

func (p *parser) parseMatcher() (*Matcher, error) {
	name := p.tok.text
	op := p.advance()
	t, ok := matchOps[op.text]
	if op.kind != tPunct || !ok {
		return nil, p.syntaxError("=", "=~", "!~", "!=")
	}
	if p.advance().kind != tString {
		return nil, p.syntaxError("STRING")
	}
	m, err := NewMatcher(t, name, p.tok.text)
	if err != nil {
		return nil, &ParseError{Msg: err.Error()}
	}
	return m, nil
}

var lineOps = map[string]LineFilterType{"|=": LineMatchEqual, "!=": LineMatchNotEqual, "|~": LineMatchRegexp, "!~": LineMatchNotRegexp,
	"|>": LineMatchPattern, "!>": LineMatchNotPattern}

// parsePipeline reads stages after a selector, starting at the current
// token, and stops at the first token that cannot continue a pipeline. In
// a log range (allowUnwrap) the pipeline may end in `| unwrap`.
func (p *parser) parsePipeline(allowUnwrap bool) ([]Stage, *UnwrapExpr, error) {
	var stages []Stage
	for {
		t := p.tok
		switch {
		case t.kind == tPunct && isLineOp(t.text):
			f, err := p.parseLineFilter(lineOps[t.text])
			if err != nil {
				return nil, nil, err
			}
			stages = append(stages, f)
		case t.kind == tPunct && t.text == "|":
			if p.advance(); p.isWord("unwrap") {
				if !allowUnwrap {
					return nil, nil, p.syntaxError()
				}
				u, err := p.parseUnwrap()
				return stages, u, err
			}
			st, err := p.parseStage()
			if err != nil {
				return nil, nil, err
			}
			stages = append(stages, st)
		default:
			return stages, nil, p.lex.errOrNil()
		}
	}
}

// isWord reports whether the current token is the identifier w, in any case.
func (p *parser) isWord(w string) bool {
	return p.tok.kind == tIdent && strings.EqualFold(p.tok.text, w)
}

func isLineOp(s string) bool {
	_, ok := lineOps[s]
	return ok
}

func (l *lexer) errOrNil() error {
	if l.err != nil {
		return l.err
	}
	return nil
}

// parseStage reads a stage from the token after its `|`.
func (p *parser) parseStage() (Stage, error) {
	t := p.tok
	if p.isPunct("(") {
		f, err := p.parseLabelFilter(1)
		if err != nil {
			return nil, err
		}
		return &LabelFilterExpr{Filter: f}, nil
	}
	if t.kind != tIdent {
		return nil, p.syntaxError()
	}
	if strings.EqualFold(t.text, "drop") {
		return p.parseDrop()
	}
	if strings.EqualFold(t.text, "keep") {
		items, err := p.parseLabelSelections()
		if err != nil {
			return nil, err
		}
		return &KeepLabelsExpr{Items: items}, nil
	}
	if strings.EqualFold(t.text, "json") {
		return p.parseJSONStage()
	}
	if strings.EqualFold(t.text, "logfmt") {
		return p.parseLogfmtStage()
	}
	if strings.EqualFold(t.text, "line_format") {
		return p.parseLineFormat()
	}
	if strings.EqualFold(t.text, "label_format") {
		return p.parseLabelFormat()
	}
	if strings.EqualFold(t.text, "unpack") {
		p.advance()
		return &LabelParserExpr{Op: "unpack"}, nil
	}
	if strings.EqualFold(t.text, "decolorize") {
		p.advance()
		return &DecolorizeExpr{}, nil
	}
	if strings.EqualFold(t.text, "pattern") {
		if p.advance().kind != tString {
			return nil, p.syntaxError("STRING")
		}
		src := p.tok.text
		p.advance()
		e, err := pattern.Parse(src)
		if err == nil {
			err = e.ValidateParser()
		}
		if err != nil {
			return nil, &ParseError{Msg: "invalid pattern parser: " + err.Error()}
		}
		return &LabelParserExpr{Op: "pattern", Param: src, Pattern: e}, nil
	}
	if strings.EqualFold(t.text, "regexp") {
		if p.advance().kind != tString {
			return nil, p.syntaxError("STRING")
		}
		re := p.tok.text
		p.advance()
		return newRegexpParser(re)
	}
	// Any other name starts a label filter, as in Loki's grammar.
	f, err := p.parseLabelFilter(1)
	if err != nil {
		return nil, err
	}
	return &LabelFilterExpr{Filter: f}, nil
}

func (p *parser) parseDrop() (Stage, error) {
	items, err := p.parseLabelSelections()
	if err != nil {
		return nil, err
	}
	return &DropLabelsExpr{Items: items}, nil
}

// parseLabelSelections reads drop/keep items: `a, b="v", c=~"re"`.
func (p *parser) parseLabelSelections() ([]LabelSelection, error) {
	var items []LabelSelection
	for {
		if !p.advance().isName() {
			return nil, p.syntaxError("IDENTIFIER")
		}
		name := p.tok.text
		next := p.advance()
		if t, ok := matchOps[next.text]; ok && next.kind == tPunct {
			if p.advance().kind != tString {
				return nil, p.syntaxError("STRING")
			}
			m, err := NewMatcher(t, name, p.tok.text)
			if err != nil {
				return nil, &ParseError{Msg: err.Error()}
			}
			items = append(items, LabelSelection{Name: name, Matcher: m})
			next = p.advance()
		} else {
			items = append(items, LabelSelection{Name: name})
		}
		if next.kind != tPunct || next.text != "," {
			return items, nil
		}
	}
}

// parseLineFilter reads `"a" [or "b" ...]` after a line filter operator,
// leaving the token after it current.
func (p *parser) parseLineFilter(t LineFilterType) (*LineFilterExpr, error) {
	var values []string
	var ips []*IPMatcher
	for {
		v := p.advance()
		var ip *IPMatcher
		switch {
		case v.kind == tIdent && v.call && strings.EqualFold(v.text, "ip"):
			pattern, err := p.parseIPCall()
			if err != nil {
				return nil, err
			}
			values = append(values, pattern)
			ip = &IPMatcher{Pattern: pattern}
		case v.kind == tString:
			values = append(values, v.text)
		default:
			return nil, p.syntaxError("STRING", "ip")
		}
		ips = append(ips, ip)
		next := p.advance()
		if next.kind != tIdent || !strings.EqualFold(next.text, "or") {
			return p.newLineFilterWithIPs(t, values, ips)
		}
	}
}

// parseIPCall reads `("pattern")` after ip.
func (p *parser) parseIPCall() (string, error) {
	if !p.advance().isPunctText("(") {
		return "", p.syntaxError("(")
	}
	if p.advance().kind != tString {
		return "", p.syntaxError("STRING")
	}
	pattern := p.tok.text
	if !p.advance().isPunctText(")") {
		return "", p.syntaxError(")")
	}
	return pattern, nil
}

// newLineFilterWithIPs builds the filter and compiles its ip() values,
// which only |= and != take.
func (p *parser) newLineFilterWithIPs(t LineFilterType, values []string, ips []*IPMatcher) (*LineFilterExpr, error) {
	f, err := newLineFilter(t, values)
	if err != nil {
		bad := &LineFilterExpr{Type: t, Values: values, IPs: ips}
		p.failStage(bad, err.Error())
		return bad, nil
	}
	f.IPs = ips
	if !f.HasIP() {
		f.IPs = nil
		return f, nil
	}
	if t != LineMatchEqual && t != LineMatchNotEqual {
		p.failStage(f, errIPInvalidOperation.Error())
		return f, nil
	}
	for i, m := range ips {
		if m == nil {
			continue
		}
		if f.IPs[i], err = NewIPMatcher(m.Pattern); err != nil {
			f.IPs[i] = m
			p.failStage(f, err.Error())
			return f, nil
		}
	}
	return f, nil
}
