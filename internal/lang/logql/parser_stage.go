package logql

import (
	"fmt"
	"strconv"

	"github.com/grafana/regexp"

	"github.com/vloki/vloki/internal/lang/logql/pattern"
)

// LabelParserExpr is a parser stage: `| json`, `| logfmt`,
// `| regexp "<re>"`.
type LabelParserExpr struct {
	Op    string
	Param string
	// Regexp is the compiled regexp parser and its named groups by index.
	Regexp *regexp.Regexp
	Names  map[int]string
	// Pattern is the pattern parser's expression.
	Pattern pattern.Expr
}

func (e *LabelParserExpr) String() string {
	if e.Param != "" || e.Op == "regexp" || e.Op == "pattern" {
		return "| " + e.Op + " " + strconv.Quote(e.Param)
	}
	return "| " + e.Op
}

// newRegexpParser applies Loki's rules: a valid regex with at least one
// named capture and no duplicate names.
func newRegexpParser(re string) (*LabelParserExpr, error) {
	bad := func(msg string) error { return &ParseError{Msg: "invalid regexp parser: " + msg} }
	rx, err := regexp.Compile(re)
	if err != nil {
		return nil, bad(err.Error())
	}
	names := map[int]string{}
	seen := map[string]bool{}
	for i, n := range rx.SubexpNames() {
		if n == "" {
			continue
		}
		if seen[n] {
			return nil, bad(fmt.Sprintf("duplicate extracted label name '%s'", n))
		}
		seen[n], names[i] = true, n
	}
	if len(names) == 0 {
		return nil, bad("at least one named capture must be supplied")
	}
	return &LabelParserExpr{Op: "regexp", Param: re, Regexp: rx, Names: names}, nil
}
