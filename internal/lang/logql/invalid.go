package logql

// invalidExpr stands for a metric expression whose construction failed:
// Loki's grammar builds such a node with its error inside and goes on
// parsing, so a later syntax error wins over it; validation, walking the
// tree from the top, reports the first one it meets.
type invalidExpr struct {
	err error
	// literal marks a number Loki could not read: a binary operation
	// reports its error before its own checks.
	literal bool
}

func (*invalidExpr) sampleExpr() {}

func (e *invalidExpr) String() string { return "<invalid: " + e.err.Error() + ">" }

// invalid wraps a construction error of Loki's parser.
func invalid(msg string) *invalidExpr { return &invalidExpr{err: &ParseError{Msg: msg}} }
