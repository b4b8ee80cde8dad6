package logql

import "fmt"

// ParseError is Loki's logqlmodel.ParseError: line and column are 0 for
// validation errors.
type ParseError struct {
	Msg       string
	Line, Col int
	// Unbuilt, when set, is the parsed query one of whose stages failed
	// to build (firstStageError), which Loki discovers in its queriers
	// and ingesters, not its parser.
	Unbuilt Expr
}

// StageUnbuilt returns the parsed query when err is a stage that failed
// to build.
func StageUnbuilt(err error) (Expr, bool) {
	pe, ok := err.(*ParseError)
	if !ok || pe.Unbuilt == nil {
		return nil, false
	}
	return pe.Unbuilt, true
}

func (e *ParseError) Error() string {
	if e.Line == 0 && e.Col == 0 {
		return "parse error : " + e.Msg
	}
	return fmt.Sprintf("parse error at line %d, col %d: %s", e.Line, e.Col, e.Msg)
}

// QueryKindError is a valid query of a kind the endpoint does not take
// (Loki answers 400).
type QueryKindError struct{ Msg string }

func (e *QueryKindError) Error() string { return e.Msg }

// UnsupportedError names a valid LogQL construct vloki cannot answer yet.
type UnsupportedError struct {
	What string
}

func (e *UnsupportedError) Error() string {
	return "vloki does not support " + e.What + " yet"
}

const errAtLeastOneMatcher = "queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~\".*\" does not meet this requirement, but app=~\".+\" will"

// maxInputSize is Loki's 128 KiB query limit.
const maxInputSize = 131072
