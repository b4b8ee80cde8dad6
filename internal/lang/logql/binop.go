package logql

import "math"

// BinaryOp is a binary operator between metric expressions: arithmetic,
// comparison or set. Like the aggregations (ops.go), each is a typed
// constant with one row below.
type BinaryOp uint8

// The binary operators.
const (
	OpOr BinaryOp = iota + 1
	OpAnd
	OpUnless
	OpEq
	OpNeq
	OpGt
	OpGte
	OpLt
	OpLte
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpMod
	OpPow
	binaryOpEnd
)

// binaryKind is what a binary operator does with its operands.
type binaryKind uint8

const (
	setOp binaryKind = iota + 1
	comparisonOp
	arithmeticOp
)

// binarySyntax is a binary operator's name, its precedence and
// associativity in Loki's grammar, and its arithmetic.
type binarySyntax struct {
	name string
	kind binaryKind
	// prec: higher binds tighter.
	prec       int
	rightAssoc bool
	// apply computes an arithmetic operator, compare a comparison.
	apply   func(l, r float64) float64
	compare func(l, r float64) bool
}

var binaryOps = [binaryOpEnd]binarySyntax{
	OpOr:     {name: "or", kind: setOp, prec: 1},
	OpAnd:    {name: "and", kind: setOp, prec: 2},
	OpUnless: {name: "unless", kind: setOp, prec: 2},
	OpEq:     {name: "==", kind: comparisonOp, prec: 3, compare: func(l, r float64) bool { return l == r }},
	OpNeq:    {name: "!=", kind: comparisonOp, prec: 3, compare: func(l, r float64) bool { return l != r }},
	OpGt:     {name: ">", kind: comparisonOp, prec: 3, compare: func(l, r float64) bool { return l > r }},
	OpGte:    {name: ">=", kind: comparisonOp, prec: 3, compare: func(l, r float64) bool { return l >= r }},
	OpLt:     {name: "<", kind: comparisonOp, prec: 3, compare: func(l, r float64) bool { return l < r }},
	OpLte:    {name: "<=", kind: comparisonOp, prec: 3, compare: func(l, r float64) bool { return l <= r }},
	OpAdd:    {name: "+", kind: arithmeticOp, prec: 4, apply: func(l, r float64) float64 { return l + r }},
	OpSub:    {name: "-", kind: arithmeticOp, prec: 4, apply: func(l, r float64) float64 { return l - r }},
	OpMul:    {name: "*", kind: arithmeticOp, prec: 5, apply: func(l, r float64) float64 { return l * r }},
	OpDiv:    {name: "/", kind: arithmeticOp, prec: 5, apply: divide},
	OpMod:    {name: "%", kind: arithmeticOp, prec: 5, apply: modulo},
	OpPow:    {name: "^", kind: arithmeticOp, prec: 6, rightAssoc: true, apply: math.Pow},
}

var binaryOpsByName = indexNames(BinaryOps())

// BinaryOps lists the binary operators.
func BinaryOps() []BinaryOp { return opsUpTo(binaryOpEnd) }

// LookupBinaryOp returns the binary operator of that (lower-case) name.
func LookupBinaryOp(name string) (BinaryOp, bool) {
	op, ok := binaryOpsByName[name]
	return op, ok
}

// row is op's row; an invalid op's is empty.
func (op BinaryOp) row() *binarySyntax {
	if op < binaryOpEnd {
		return &binaryOps[op]
	}
	return &binarySyntax{}
}

func (op BinaryOp) String() string { return nameOr(op.row().name, "BinaryOp", op) }

// IsSet reports the set operators and, or, unless.
func (op BinaryOp) IsSet() bool { return op.row().kind == setOp }

// IsComparison reports ==, !=, >, >=, <, <=.
func (op BinaryOp) IsComparison() bool { return op.row().kind == comparisonOp }

// Apply computes l op r with Loki's rules: division and modulo by zero
// give NaN, comparisons give 1 or 0, set operators 0.
func (op BinaryOp) Apply(l, r float64) float64 {
	row := op.row()
	switch row.kind {
	case arithmeticOp:
		return row.apply(l, r)
	case comparisonOp:
		return boolFloat(row.compare(l, r))
	}
	return 0
}

// Compare applies a comparison operator; any other is false.
func (op BinaryOp) Compare(l, r float64) bool {
	if c := op.row().compare; c != nil {
		return c(l, r)
	}
	return false
}

func divide(l, r float64) float64 {
	if r == 0 {
		return math.NaN()
	}
	return l / r
}

func modulo(l, r float64) float64 {
	if r == 0 {
		return math.NaN()
	}
	return math.Mod(l, r)
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// foldLiterals reduces literal op literal to a literal, as Loki does.
func foldLiterals(op BinaryOp, l, r float64) (float64, bool) {
	if op.IsSet() {
		return 0, false
	}
	return op.Apply(l, r), true
}
