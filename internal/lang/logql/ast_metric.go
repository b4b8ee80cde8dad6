package logql

import (
	"strconv"
	"strings"
	"time"
)

// SampleExpr is a metric query.
type SampleExpr interface {
	Expr
	sampleExpr()
}

// Grouping is `by (a, b)` or `without (a, b)`.
type Grouping struct {
	Groups  []string
	Without bool
}

func (g *Grouping) String() string {
	if g == nil {
		return ""
	}
	kw := " by "
	if g.Without {
		kw = " without "
	}
	return kw + "(" + strings.Join(g.Groups, ",") + ")"
}

// LogRange is a log query over a range: `{...} |= "x" [5m] offset 1h`.
type LogRange struct {
	Left     LogSelectorExpr
	Unwrap   *UnwrapExpr
	Interval time.Duration
	Offset   time.Duration
}

func (r *LogRange) String() string {
	s := r.Left.String() + r.Unwrap.String() + "[" + formatDuration(r.Interval) + "]"
	if r.Offset != 0 {
		s += " offset " + r.Offset.String()
	}
	return s
}

// UnwrapExpr is `| unwrap [conversion(]label[)]` and the label filters
// applied after it.
type UnwrapExpr struct {
	Identifier  string
	Operation   string // "", "bytes", "duration" or "duration_seconds"
	PostFilters []LabelFilter
}

func (u *UnwrapExpr) String() string {
	if u == nil {
		return ""
	}
	s := " | unwrap " + u.Identifier
	if u.Operation != "" {
		s = " | unwrap " + u.Operation + "(" + u.Identifier + ")"
	}
	for _, f := range u.PostFilters {
		s += " | " + f.String()
	}
	return s
}

// RangeAggregationExpr is `count_over_time(<log range>)` and its kin.
type RangeAggregationExpr struct {
	Op       RangeOp
	Left     *LogRange
	Param    *float64
	Grouping *Grouping
}

func (*RangeAggregationExpr) sampleExpr() {}

func (e *RangeAggregationExpr) String() string {
	param := ""
	if e.Param != nil {
		param = formatFloat(*e.Param) + ","
	}
	return e.Op.String() + "(" + param + e.Left.String() + ")" + e.Grouping.String()
}

// VectorAggregationExpr is `sum by (x) (<metric>)` and its kin.
type VectorAggregationExpr struct {
	Op       VectorOp
	Left     SampleExpr
	Param    *float64
	Grouping *Grouping
}

func (*VectorAggregationExpr) sampleExpr() {}

func (e *VectorAggregationExpr) String() string {
	param := ""
	if e.Param != nil {
		param = formatFloat(*e.Param) + ","
	}
	grouping := ""
	if g := e.Grouping; g != nil && (g.Without || len(g.Groups) > 0) {
		grouping = g.String()
	}
	return e.Op.String() + grouping + "(" + param + e.Left.String() + ")"
}

// VectorMatching is `on (...)` / `ignoring (...)`, possibly with
// `group_left (...)` / `group_right (...)`.
type VectorMatching struct {
	On     bool
	Labels []string
	Card   Cardinality
	// Include lists the labels group_x copies from the "one" side.
	Include []string
}

// Cardinality is how many series of each side a match may join.
type Cardinality int

// The matching cardinalities.
const (
	OneToOne Cardinality = iota
	ManyToOne
	OneToMany
)

func (m *VectorMatching) groupString() string {
	g := ""
	switch m.Card {
	case ManyToOne:
		g = "group_left"
	case OneToMany:
		g = "group_right"
	}
	if m.Include != nil {
		g += " (" + strings.Join(m.Include, ",") + ")"
	}
	return g
}

// BinOpExpr is a binary operation.
type BinOpExpr struct {
	Op         BinaryOp
	LHS, RHS   SampleExpr
	ReturnBool bool
	Matching   *VectorMatching
}

func (*BinOpExpr) sampleExpr() {}

func (e *BinOpExpr) String() string {
	mod := ""
	if e.ReturnBool {
		mod += " bool"
	}
	if m := e.Matching; m != nil {
		kw := " ignoring"
		if m.On {
			kw = " on"
		}
		if m.On || len(m.Labels) > 0 {
			mod += kw + " (" + strings.Join(m.Labels, ",") + ") " + m.groupString()
		}
	}
	return "(" + e.LHS.String() + " " + e.Op.String() + mod + " " + e.RHS.String() + ")"
}

// LiteralExpr is a number.
type LiteralExpr struct {
	Val float64
}

func (*LiteralExpr) sampleExpr() {}

func (e *LiteralExpr) String() string { return strconv.FormatFloat(e.Val, 'g', -1, 64) }

// VectorExpr is `vector(1)`.
type VectorExpr struct {
	Val float64
}

func (*VectorExpr) sampleExpr() {}

func (e *VectorExpr) String() string { return "vector(" + strconv.FormatFloat(e.Val, 'f', 6, 64) + ")" }

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// formatDuration prints a duration the way Prometheus' model.Duration does.
func formatDuration(d time.Duration) string {
	return modelDuration(d)
}
