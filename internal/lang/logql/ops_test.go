package logql

import (
	"strings"
	"testing"
)

// TestOperatorRows checks that every operator constant has a row: a
// unique name that looks the constant up again.
func TestOperatorRows(t *testing.T) {
	seen := map[string]bool{}
	check := func(name string, found bool) {
		t.Helper()
		if name == "" || strings.Contains(name, "Op(") || !found || seen[name] {
			t.Errorf("operator %q: missing row, missing from its index, or named twice", name)
		}
		seen[name] = true
	}
	for _, op := range RangeOps() {
		got, ok := LookupRangeOp(op.String())
		check(op.String(), ok && got == op)
	}
	for _, op := range VectorOps() {
		got, ok := LookupVectorOp(op.String())
		check(op.String(), ok && got == op)
	}
	for _, op := range BinaryOps() {
		got, ok := LookupBinaryOp(op.String())
		check(op.String(), ok && got == op && op.row().kind != 0 && op.row().prec > 0)
		if a := op.row(); (a.kind == arithmeticOp) != (a.apply != nil) || (a.kind == comparisonOp) != (a.compare != nil) {
			t.Errorf("%s: arithmetic needs apply, a comparison compare", op)
		}
	}
	if len(seen) != len(RangeOps())+len(VectorOps())+len(BinaryOps()) || len(RangeOps()) == 0 {
		t.Errorf("%d names for %d operators", len(seen), len(RangeOps())+len(VectorOps())+len(BinaryOps()))
	}
}

// rangeCall writes a call of op that its row says is valid.
func rangeCall(op RangeOp) string {
	param, unwrap := "", ""
	if op.TakesParam() {
		param = "0.5,"
	}
	if op.UnwrapRule() == UnwrapRequired {
		unwrap = " | unwrap x"
	}
	return op.String() + "(" + param + `{a="b"}` + unwrap + "[1m])"
}

// TestRangeOpsParse parses a call of every range aggregation as its row
// describes it, prints it and parses the print again; and checks that
// the rules of its row are Loki's errors.
func TestRangeOpsParse(t *testing.T) {
	for _, op := range RangeOps() {
		q := rangeCall(op)
		if op.TakesGrouping() {
			q += " by (a)"
		}
		roundTrip(t, q, func(e Expr) bool { r, ok := e.(*RangeAggregationExpr); return ok && r.Op == op })
		wantError(t, "-"+q, "syntax error: unexpected "+strings.ToUpper(op.String())+", expecting NUMBER")
		switch op.UnwrapRule() {
		case UnwrapRequired:
			wantError(t, strings.Replace(q, " | unwrap x", "", 1), "invalid aggregation "+op.String()+" without unwrap")
		case UnwrapForbidden:
			wantError(t, op.String()+`({a="b"} | unwrap x [1m])`, "invalid aggregation "+op.String()+" with unwrap")
		}
		if !op.TakesGrouping() {
			wantError(t, q+" by (a)", "grouping not allowed for "+op.String()+" aggregation")
		}
		if op.TakesParam() {
			wantError(t, strings.Replace(q, "0.5,", "", 1), "parameter required for operation "+op.String())
		} else {
			wantError(t, op.String()+`(2, {a="b"}[1m])`, "parameter 2 not supported for operation "+op.String())
		}
	}
}

// TestVectorOpsParse does the same for every vector aggregation.
func TestVectorOpsParse(t *testing.T) {
	for _, op := range VectorOps() {
		param := ""
		if op.TakesParam() {
			param = "2,"
		}
		q := op.String() + "(" + param + `count_over_time({a="b"}[1m]))`
		roundTrip(t, q, func(e Expr) bool { v, ok := e.(*VectorAggregationExpr); return ok && v.Op == op })
		wantError(t, "-"+q, "syntax error: unexpected "+strings.ToUpper(op.String())+", expecting NUMBER")
		if op.TakesParam() {
			wantError(t, strings.Replace(q, param, "", 1), "parameter required for operation "+op.String())
		} else {
			wantError(t, op.String()+`(2, count_over_time({a="b"}[1m]))`, "unsupported parameter for operation "+op.String()+"(2,")
		}
		switch op.row().grouping {
		case groupingNone:
			wantError(t, op.String()+" by (a) ("+param+`count_over_time({a="b"}[1m]))`, "grouping not allowed for "+op.String()+" aggregation")
		case groupingNoLabels:
			wantError(t, op.String()+" by (a) ("+param+`count_over_time({a="b"}[1m]))`, "doesn't allow grouping by")
		default:
			roundTrip(t, op.String()+" by (a) ("+param+`count_over_time({a="b"}[1m]))`, func(e Expr) bool { return true })
		}
		refused := Refusal(mustParse(t, q)) != nil
		if refused != (op.Refusal() != nil) {
			t.Errorf("%s: refused %v", q, refused)
		}
	}
}

// TestBinaryOpsParse parses every pair of binary operators and checks
// that the tree follows their precedence and associativity, and that it
// prints back.
func TestBinaryOpsParse(t *testing.T) {
	for _, a := range BinaryOps() {
		for _, b := range BinaryOps() {
			q := "vector(1) " + a.String() + " vector(2) " + b.String() + " vector(3)"
			e := mustParse(t, q)
			top, ok := e.(*BinOpExpr)
			if !ok {
				t.Fatalf("%s: %T", q, e)
			}
			pa, pb := a.row().prec, b.row().prec
			leftFirst := pa > pb || (pa == pb && !a.row().rightAssoc)
			if leftFirst && top.Op != b || !leftFirst && top.Op != a {
				t.Errorf("%s: parsed as %s", q, e)
			}
			roundTrip(t, q, func(e Expr) bool { return e.String() == top.String() })
		}
	}
}

func TestBinaryOpsApply(t *testing.T) {
	cases := []struct {
		op   BinaryOp
		l, r float64
		want float64
	}{
		{OpAdd, 2, 3, 5}, {OpSub, 2, 3, -1}, {OpMul, 2, 3, 6}, {OpDiv, 3, 2, 1.5}, {OpMod, 7, 4, 3}, {OpPow, 2, 3, 8},
		{OpEq, 2, 2, 1}, {OpNeq, 2, 2, 0}, {OpGt, 3, 2, 1}, {OpGte, 2, 2, 1}, {OpLt, 3, 2, 0}, {OpLte, 2, 2, 1},
		{OpAnd, 1, 1, 0},
	}
	for _, c := range cases {
		if got := c.op.Apply(c.l, c.r); got != c.want {
			t.Errorf("%v %s %v = %v, want %v", c.l, c.op, c.r, got, c.want)
		}
	}
	if v := OpDiv.Apply(1, 0); v == v {
		t.Errorf("1/0 = %v, want NaN", v)
	}
	if v := OpMod.Apply(1, 0); v == v {
		t.Errorf("1%%0 = %v, want NaN", v)
	}
}

func mustParse(t *testing.T, q string) Expr {
	t.Helper()
	e, err := ParseExpr(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return e
}

func roundTrip(t *testing.T, q string, want func(Expr) bool) {
	t.Helper()
	e := mustParse(t, q)
	if !want(e) {
		t.Errorf("%s: parsed as %#v", q, e)
	}
	again, err := ParseExpr(e.String())
	if err != nil || again.String() != e.String() {
		t.Errorf("%s: printed %s, which parses as %v (%v)", q, e, again, err)
	}
}

func wantError(t *testing.T, q, want string) {
	t.Helper()
	if _, err := ParseExpr(q); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %v, want %q", q, err, want)
	}
}
