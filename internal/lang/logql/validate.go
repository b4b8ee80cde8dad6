package logql

import "fmt"

// validate applies Loki's checks after parsing (syntax.validateExpr).
func validate(e Expr) error {
	switch e := e.(type) {
	case LogSelectorExpr:
		return validateMatchers(e.Matchers())
	case SampleExpr:
		return validateSample(e, false)
	}
	return &ParseError{Msg: fmt.Sprintf("unexpected expression type: %v", e)}
}

// validateSample checks a metric query; forFormat leaves out the check
// format_query does not make (an aggregated number).
func validateSample(e SampleExpr, forFormat bool) error {
	switch e := e.(type) {
	case *invalidExpr:
		return e.err
	case *RangeAggregationExpr:
		return validateMatchers(e.Left.Left.Matchers())
	case *VectorAggregationExpr:
		if e.Op.row().grouping == groupingNoLabels && e.Grouping != nil && len(e.Grouping.Groups) > 0 {
			return &ParseError{Msg: "sort and sort_desc doesn't allow grouping by "}
		}
		if _, ok := e.Left.(*LiteralExpr); ok && !forFormat && e.Op.row().literalOnQuerier {
			// Loki sends sum, count and avg of a number to its queriers,
			// which read the number as a selector without matchers.
			return &ParseError{Msg: errAtLeastOneMatcher}
		}
		return validateSample(e.Left, forFormat)
	case *LabelReplaceExpr:
		return validateSample(e.Left, forFormat)
	case *VariantsExpr:
		for _, v := range e.Variants {
			if err := validateSample(v, forFormat); err != nil {
				return err
			}
		}
		return validateMatchers(e.LogRange.Left.Matchers())
	case *BinOpExpr:
		if err := validateSample(e.LHS, forFormat); err != nil {
			return err
		}
		return validateSample(e.RHS, forFormat)
	}
	return nil
}
