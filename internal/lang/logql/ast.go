// Package logql is vloki's model of LogQL: lexer, parser, typed AST,
// printer and Loki-exact errors. Constructs vloki does not run are
// reported as an *UnsupportedError naming them, never answered wrongly.
//
// Operators are typed constants (RangeOp, VectorOp, BinaryOp), each with
// one row of what the language says of it (ops.go, binop.go): its name,
// whether it takes a parameter, a grouping or `| unwrap`, its precedence.
// The parser, printer and validation read the rows; the planner and the
// evaluator keep what they do per operator in their own table keyed by
// the same constants (plan/ops.go, read/metric/ops.go), so logql imports
// neither and every package keeps its one job. A query names an operator
// by its row's name and nothing else spells it.
package logql

import (
	"strconv"
	"strings"

	"github.com/grafana/regexp"
)

// Expr is any parsed query.
type Expr interface {
	String() string
}

// LogSelectorExpr is a log query: a selector and its pipeline.
type LogSelectorExpr interface {
	Expr
	Matchers() []*Matcher
	// Stages are the pipeline stages in order; empty for a bare selector.
	Stages() []Stage
}

// MatchType is a label matcher's operator.
type MatchType int

// Matcher operators.
const (
	MatchEqual MatchType = iota
	MatchNotEqual
	MatchRegexp
	MatchNotRegexp
)

func (t MatchType) String() string {
	return [...]string{"=", "!=", "=~", "!~"}[t]
}

// Matcher is one label matcher. Regexes are fully anchored and `.` matches
// a newline, as in Prometheus; a missing label matches like "".
type Matcher struct {
	Type  MatchType
	Name  string
	Value string
	re    *regexp.Regexp
}

// NewMatcher builds a matcher, compiling its regex.
func NewMatcher(t MatchType, name, value string) (*Matcher, error) {
	m := &Matcher{Type: t, Name: name, Value: value}
	if t == MatchRegexp || t == MatchNotRegexp {
		// Errors name the regex as written, as Prometheus reports them.
		if _, err := compileRegexp(value); err != nil {
			return nil, err
		}
		re, err := compileRegexp("^(?s:" + value + ")$")
		if err != nil {
			return nil, err
		}
		m.re = re
	}
	return m, nil
}

// MatchLabels applies Loki's selector rules to a label set read through
// get: every matcher must hold, a missing label compares as "".
func MatchLabels(ms []*Matcher, get func(name string) (string, bool)) bool {
	for _, m := range ms {
		v, _ := get(m.Name)
		if !m.Matches(v) {
			return false
		}
	}
	return true
}

// Matches reports whether a label value satisfies the matcher.
func (m *Matcher) Matches(v string) bool {
	switch m.Type {
	case MatchNotEqual:
		return v != m.Value
	case MatchRegexp:
		return m.re.MatchString(v)
	case MatchNotRegexp:
		return !m.re.MatchString(v)
	}
	return v == m.Value
}

func (m *Matcher) String() string {
	return m.Name + m.Type.String() + strconv.Quote(m.Value)
}

// MatchersExpr is a bare stream selector.
type MatchersExpr struct {
	Mts []*Matcher
}

// Matchers returns the selector's matchers.
func (e *MatchersExpr) Matchers() []*Matcher { return e.Mts }

// Stages is empty for a bare selector.
func (e *MatchersExpr) Stages() []Stage { return nil }

func (e *MatchersExpr) String() string {
	parts := make([]string, len(e.Mts))
	for i, m := range e.Mts {
		parts[i] = m.String()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// PipelineExpr is a selector followed by stages.
type PipelineExpr struct {
	Left     *MatchersExpr
	Pipeline []Stage
}

// Matchers returns the selector's matchers.
func (e *PipelineExpr) Matchers() []*Matcher { return e.Left.Mts }

// Stages returns the pipeline.
func (e *PipelineExpr) Stages() []Stage { return e.Pipeline }

func (e *PipelineExpr) String() string {
	var b strings.Builder
	b.WriteString(e.Left.String())
	for _, s := range e.Pipeline {
		b.WriteByte(' ')
		b.WriteString(s.String())
	}
	return b.String()
}

// Stage is one pipeline stage.
type Stage interface {
	String() string
}
