package logql

// LabelParserExpr is a parser stage: `| json` (more to come).
type LabelParserExpr struct {
	Op string
}

func (e *LabelParserExpr) String() string { return "| " + e.Op }
