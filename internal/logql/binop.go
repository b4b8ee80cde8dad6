package logql

import "math"

// ApplyBinOp computes l op r with Loki's rules: division and modulo by
// zero give NaN, comparisons give 1 or 0.
func ApplyBinOp(op string, l, r float64) float64 {
	switch op {
	case "+":
		return l + r
	case "-":
		return l - r
	case "*":
		return l * r
	case "/":
		if r == 0 {
			return math.NaN()
		}
		return l / r
	case "%":
		if r == 0 {
			return math.NaN()
		}
		return math.Mod(l, r)
	case "^":
		return math.Pow(l, r)
	}
	return boolFloat(Compare(op, l, r))
}

// Compare applies a comparison operator.
func Compare(op string, l, r float64) bool {
	switch op {
	case "==":
		return l == r
	case "!=":
		return l != r
	case ">":
		return l > r
	case ">=":
		return l >= r
	case "<":
		return l < r
	case "<=":
		return l <= r
	}
	return false
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// IsLogicalOp reports the set operators and, or, unless.
func IsLogicalOp(op string) bool { return op == "and" || op == "or" || op == "unless" }

// foldLiterals reduces literal op literal to a literal, as Loki does.
func foldLiterals(op string, l, r float64, _ bool) (float64, bool) {
	if IsLogicalOp(op) {
		return 0, false
	}
	return ApplyBinOp(op, l, r), true
}
