package logql

import "strings"

// DropLabelsExpr is `| drop a, b`: it removes the named labels. Only plain
// names are supported in this slice.
type DropLabelsExpr struct {
	Names []string
}

func (e *DropLabelsExpr) String() string { return "| drop " + strings.Join(e.Names, ",") }
