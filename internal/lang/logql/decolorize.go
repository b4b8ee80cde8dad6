package logql

// DecolorizeExpr is `| decolorize`: it strips ANSI escape sequences from
// the line.
type DecolorizeExpr struct{}

func (*DecolorizeExpr) String() string { return "| decolorize" }
