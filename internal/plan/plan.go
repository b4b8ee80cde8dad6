// Package plan compiles a parsed LogQL query into a typed plan: what runs
// inside VictoriaLogs (a LogsQL filter) and what runs locally on the rows it
// returns.
package plan

import (
	"slices"

	"github.com/vloki/vloki/internal/logql"
	"github.com/vloki/vloki/internal/logsql"
)

// LineMatcher checks a log line with Loki's exact semantics.
type LineMatcher interface {
	Match(line string) bool
}

// Stage is one local pipeline stage, run in query order.
type Stage interface{ stage() }

// LineStage keeps lines a line filter accepts.
type LineStage struct{ M LineMatcher }

// DropStage removes labels from the entry.
type DropStage struct{ Names []string }

// LabelFilterStage keeps entries whose labels pass the filter.
type LabelFilterStage struct{ F logql.LabelFilter }

func (LineStage) stage()        {}
func (DropStage) stage()        {}
func (LabelFilterStage) stage() {}

// LogQuery is a compiled log query (resultType streams).
type LogQuery struct {
	// Pushdown is the LogsQL filter VictoriaLogs applies. It selects a
	// superset of the answer; the local stages decide exactly.
	Pushdown logsql.Filter
	// PushdownExact reports that Pushdown alone selects exactly the
	// entries the stages keep, so VictoriaLogs may aggregate on it.
	PushdownExact bool
	// Stages run locally on every row, in order.
	Stages []Stage
	// Drop are all label names the query drops, removed from the output.
	Drop []string
}

// Pass runs the local stages on one entry; lookup returns a label's value
// (stream label or structured metadata), "" when absent.
func (q *LogQuery) Pass(line string, lookup func(string) string) bool {
	var dropped []string
	get := func(name string) string {
		if slices.Contains(dropped, name) {
			return ""
		}
		return lookup(name)
	}
	for _, st := range q.Stages {
		switch st := st.(type) {
		case LineStage:
			if !st.M.Match(line) {
				return false
			}
		case DropStage:
			dropped = append(dropped, st.Names...)
		case LabelFilterStage:
			if !st.F.Match(get) {
				return false
			}
		}
	}
	return true
}
