package mutate

import (
	"strings"

	"github.com/vloki/vloki/internal/lang/logql"
)

// Mutations that know some of LogQL's structure: groupings, offsets,
// bool and vector matching moved or inserted elsewhere, log pipelines
// where vectors belong and vectors where pipelines belong.

// movable reports the span starting at token i that can move as a whole:
// `by (...)`, `without (...)`, `on (...)`, `ignoring (...)`,
// `group_left [(...)]`, `group_right [(...)]`, `offset 5m`, `bool`.
func (g *gen) movable(i int) (end int, ok bool) {
	switch strings.ToLower(g.pieces[i].text) {
	case "by", "without", "on", "ignoring", "group_left", "group_right":
		if close := g.closing(i + 1); close > 0 {
			return close, true
		}
		return i, true
	case "offset":
		return min(i+1, g.tokens()-1), true
	case "bool":
		return i, true
	}
	return 0, false
}

// closing returns the index of the `)` matching an `(` at i, or -1.
func (g *gen) closing(i int) int {
	if i >= g.tokens() || g.pieces[i].text != "(" {
		return -1
	}
	depth := 0
	for j := i; j < g.tokens(); j++ {
		switch g.pieces[j].text {
		case "(":
			depth++
		case ")":
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

// moves takes every movable span out and puts it before every other token.
func (g *gen) moves() []string {
	var out []string
	for i := range g.tokens() {
		end, ok := g.movable(i)
		if !ok {
			continue
		}
		span := append([]piece{}, g.pieces[i:end+1]...)
		span[0].pre = " "
		rest := append(append([]piece{}, g.pieces[:i]...), g.pieces[end+1:]...)
		for k := range len(rest) {
			if k == i {
				continue
			}
			moved := append(append(append([]piece{}, rest[:k]...), span...), rest[k:]...)
			out = append(out, join(moved))
		}
	}
	return out
}

// constructs are the phrases that modify an expression, inserted anywhere.
var constructs = []string{
	"by (app)", "without (app)", "by ()", "offset 5m", "bool", "on (app)", "ignoring (app)", "on ()",
	"group_left (app)", "group_right", "[5m]", "[5m:1m]", "| unwrap latency", "| json", `|= "x"`,
	"by (app) (", ")", "| line_format", "| label_format a=b", "| drop a", "| x > 1",
}

func (g *gen) constructs() []string {
	var out []string
	for i := range g.tokens() + 1 {
		for _, c := range constructs {
			out = append(out, join(insertAt(g.pieces, i, c)))
		}
	}
	return out
}

// pipelineTemplates put a log pipeline P where a vector belongs.
var pipelineTemplates = []string{
	"sum(P)", "sum by (app) (P)", "P + 1", "1 + P", "P > bool 1", "(P) * 2", "topk(2, P)", "rate(P)",
	"rate((P))", `label_replace(P, "a", "b", "c", "d")`, "P or P", "P and vector(1)", "-P",
	"count_over_time((P))", "P / count_over_time(P [5m])", "sum(rate(P [5m])) by (app) + P",
}

// seedTemplates apply vector syntax to the whole seed S.
var seedTemplates = []string{
	"rate(S [5m])", "S[5m]", "S [5m:1m]", "count_over_time(S)", "sum(S)", "S | json", `S |= "x"`,
	"rate((S)[5m])", "S offset 5m", "(S) by (app)", "avg_over_time(S | unwrap x [5m])", "S > bool S",
}

// wraps puts the seed's log pipeline where its vectors are, the seed's
// vectors where its pipeline is, and both into templates.
func (g *gen) wraps() []string {
	var out []string
	pipe, ps, pe := g.pipeline()
	for _, t := range seedTemplates {
		out = append(out, strings.ReplaceAll(t, "S", g.seed))
	}
	if pipe == "" {
		return out
	}
	for _, t := range pipelineTemplates {
		out = append(out, strings.ReplaceAll(t, "P", pipe))
	}
	for _, v := range g.vectors() {
		vec := strings.TrimSpace(join(g.pieces[v[0] : v[1]+1]))
		out = append(out,
			g.replaceSpan(v[0], v[1], pipe),
			g.replaceSpan(v[0], v[1], "("+pipe+")"))
		if v[0] > pe || v[1] < ps {
			out = append(out, g.replaceSpan(ps, pe, vec))
		}
	}
	return out
}

// pipeline returns the seed's first log pipeline (a selector and its
// stages, up to a range, an unbalanced `)`, an offset or the end) and
// its token span.
func (g *gen) pipeline() (string, int, int) {
	start := -1
	for i := range g.tokens() {
		if g.pieces[i].text == "{" {
			start = i
			break
		}
	}
	if start < 0 {
		return "", 0, 0
	}
	depth, end := 0, start
	for j := start; j < g.tokens(); j++ {
		p := g.pieces[j]
		if p.name == "RANGE" || p.name == "offset" {
			break
		}
		if p.text == "(" {
			depth++
		}
		if p.text == ")" {
			if depth--; depth < 0 {
				break
			}
		}
		end = j
	}
	return strings.TrimSpace(join(g.pieces[start : end+1])), start, end
}

// vectors returns the token spans of the seed's function calls and
// numbers: what a vector operand can be.
func (g *gen) vectors() [][2]int {
	var out [][2]int
	for i := range g.tokens() {
		p := g.pieces[i]
		if p.name == "NUMBER" {
			out = append(out, [2]int{i, i})
			continue
		}
		if p.name != "IDENTIFIER" || !isFunction(p.text) {
			continue
		}
		open := i + 1
		if open < g.tokens() && (g.pieces[open].name == "by" || g.pieces[open].name == "without") {
			open = g.closing(open+1) + 1
		}
		if open <= 0 {
			continue
		}
		if end := g.closing(open); end > 0 {
			out = append(out, [2]int{i, end})
		}
	}
	return out
}

func isFunction(name string) bool {
	name = strings.ToLower(name)
	if _, ok := logql.LookupRangeOp(name); ok {
		return true
	}
	if _, ok := logql.LookupVectorOp(name); ok {
		return true
	}
	return name == "vector" || name == "label_replace"
}

// replaceSpan replaces tokens i..j with text.
func (g *gen) replaceSpan(i, j int, text string) string {
	ps := append([]piece{}, g.pieces[:i]...)
	ps = append(ps, piece{pre: g.pieces[i].pre, text: text})
	return join(append(ps, g.pieces[j+1:]...))
}

// spans are the seed's balanced groups: `(...)`, `{...}`, and a call
// with its arguments.
func (g *gen) spans() [][2]int {
	var out [][2]int
	for i := range g.tokens() {
		switch g.pieces[i].text {
		case "(":
			if end := g.closing(i); end > 0 {
				out = append(out, [2]int{i, end})
			}
		case "{":
			for j := i + 1; j < g.tokens(); j++ {
				if g.pieces[j].text == "}" {
					out = append(out, [2]int{i, j})
					break
				}
			}
		}
	}
	return append(out, g.vectors()...)
}

// splices copy a balanced group of the seed before another token, or in
// place of another group.
func (g *gen) splices() []string {
	var out []string
	spans := g.spans()
	for _, sp := range spans {
		text := strings.TrimSpace(join(g.pieces[sp[0] : sp[1]+1]))
		for k := range g.tokens() + 1 {
			out = append(out, join(insertAt(g.pieces, k, text)))
		}
		for _, other := range spans {
			if other != sp {
				out = append(out, g.replaceSpan(other[0], other[1], text))
			}
		}
	}
	return out
}
