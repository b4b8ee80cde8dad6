// Package plan compiles a parsed LogQL query into a typed plan: what runs
// inside VictoriaLogs (a LogsQL filter) and what runs locally on the rows it
// returns.
package plan

import (
	"github.com/vloki/vloki/internal/logsql"
)

// LineMatcher checks a log line with Loki's exact semantics.
type LineMatcher interface {
	Match(line string) bool
}

// LogQuery is a compiled log query (resultType streams).
type LogQuery struct {
	// Pushdown is the LogsQL filter VictoriaLogs applies. It selects a
	// superset of the answer; Local decides exactly.
	Pushdown logsql.Filter
	// Local are the line checks run on every row, in order.
	Local []LineMatcher
	// Drop are label names removed from every entry (| drop).
	Drop []string
}
