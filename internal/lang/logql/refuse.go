package logql

import "net/http"

// RefusedError is a query Loki parses but refuses to run, with the status
// it answers.
type RefusedError struct {
	Status int
	Msg    string
}

func (e *RefusedError) Error() string { return e.Msg }

var errLiteralEvaluator = &RefusedError{Status: http.StatusInternalServerError,
	Msg: "unexpected expr type (*syntax.LiteralExpr) for Evaluator type (*logql.DefaultEvaluator) "}

// Refusal reports whether Loki v3.7.8, with its default limits, refuses to
// evaluate e: variants (multi-variant queries are off), aggregations it
// does not enable (VectorOp.Refusal: approx_topk, as shard_aggregations
// is empty), label_replace over a bare number, other aggregations of a
// bare number.
func Refusal(e Expr) error {
	var err error
	Walk(e, func(x Expr) bool {
		if err != nil {
			return false
		}
		switch x := x.(type) {
		case *VariantsExpr:
			err = &RefusedError{Status: http.StatusBadRequest, Msg: "multi variant queries are disabled for this instance"}
		case *VectorAggregationExpr:
			if refusal := x.Op.Refusal(); refusal != nil {
				err = refusal
			} else if _, ok := x.Left.(*LiteralExpr); ok {
				// Loki's frontend evaluator cannot aggregate a number.
				err = errLiteralEvaluator
			}
		case *LabelReplaceExpr:
			if _, ok := x.Left.(*LiteralExpr); ok {
				err = errLiteralEvaluator
			}
		}
		return err == nil
	})
	return err
}

// Walk visits e and its metric operands depth first while fn says so.
func Walk(e Expr, fn func(Expr) bool) {
	if !fn(e) {
		return
	}
	switch e := e.(type) {
	case *VectorAggregationExpr:
		Walk(e.Left, fn)
	case *BinOpExpr:
		Walk(e.LHS, fn)
		Walk(e.RHS, fn)
	case *LabelReplaceExpr:
		Walk(e.Left, fn)
	case *VariantsExpr:
		for _, v := range e.Variants {
			Walk(v, fn)
		}
	}
}
