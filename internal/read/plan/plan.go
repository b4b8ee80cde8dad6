// Package plan compiles a parsed LogQL query into a typed plan: what runs
// inside VictoriaLogs (a LogsQL filter) and what runs locally on the rows it
// returns.
//
// What planning knows of each LogQL aggregation (whether VictoriaLogs'
// buckets answer it, whether a sum's grouping is injected into it, how
// Loki's frontend shards it) is one row per operator in ops.go, keyed by
// logql's typed operators.
package plan

import (
	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/lang/logtmpl"
	"github.com/vloki/vloki/internal/storage/otheragents"
)

// LineMatcher checks a log line with Loki's exact semantics.
type LineMatcher interface {
	Match(line string) bool
}

// Stage is one local pipeline stage, run in query order.
type Stage interface{ stage() }

// LineStage keeps lines a line filter accepts.
type LineStage struct{ M LineMatcher }

// DropStage removes labels from the entry (matchers: when they match).
type DropStage struct{ Items []logql.LabelSelection }

// KeepStage removes every label it does not list (error labels stay).
type KeepStage struct{ Items []logql.LabelSelection }

func (KeepStage) stage() {}

// LabelFilterStage keeps entries whose labels pass the filter.
type LabelFilterStage struct{ F logql.LabelFilter }

// ParserStage extracts labels from the line (json, logfmt, regexp).
type ParserStage struct {
	Op   string
	Expr *logql.LabelParserExpr
}

// DecolorizeStage strips ANSI escape sequences from the line.
type DecolorizeStage struct{}

// LineFormatStage replaces the line by the template's output.
type LineFormatStage struct{ T *logtmpl.Template }

// LabelFormatStage renames labels and sets labels from templates.
type LabelFormatStage struct{ Formats []logql.LabelFmt }

// JSONParamsStage extracts the listed JSON paths.
type JSONParamsStage struct{ Params []logql.LabelExtraction }

// LogfmtStage is logfmt with flags or parameters.
type LogfmtStage struct{ E *logql.LogfmtExpr }

func (JSONParamsStage) stage()  {}
func (LogfmtStage) stage()      {}
func (LineFormatStage) stage()  {}
func (LabelFormatStage) stage() {}

func (DecolorizeStage) stage()  {}
func (LineStage) stage()        {}
func (DropStage) stage()        {}
func (LabelFilterStage) stage() {}
func (ParserStage) stage()      {}

// LogQuery is a compiled log query (resultType streams).
type LogQuery struct {
	// Selector are the stream matchers, over Loki's label names. The
	// pushdown applies them; rows that reach vloki another way (a live
	// tail's pushes) are checked against them locally.
	Selector []*logql.Matcher
	// Pushdown is the LogsQL filter VictoriaLogs applies. It selects a
	// superset of the answer; the local stages decide exactly.
	Pushdown logsql.Filter
	// PushdownExact reports that Pushdown alone selects exactly the
	// entries the stages keep, so VictoriaLogs may aggregate on it.
	PushdownExact bool
	// Contains are strings every row the query keeps holds in its stored
	// line, its line with JSON's \u escapes read, a structured metadata
	// value or a stream label value: its one-value `|=` filters before any
	// stage changes the line, and the values of its `name="v"` label
	// filters where necessaryCondition holds. A needle index may tell the
	// only hours such rows can be in.
	Contains []string
	// FiltersLines reports that Pushdown matches lines (line filters,
	// necessary conditions), which is what VictoriaLogs spends most on.
	FiltersLines bool
	// ExactButParsers reports that only parser stages (json, logfmt,
	// regexp, pattern; not unpack, which changes the line) keep the
	// pushdown from being exact: when they extract nothing (Loki's
	// NoLabels hints), VictoriaLogs may aggregate on it.
	ExactButParsers bool
	// Stages run locally on every row, in order.
	Stages []Stage
	// Drop are the label names drop stages may remove.
	Drop []string
	// HasParser reports a parser stage: entries gain parsed labels.
	HasParser bool
	// Early are the filters parsers check as they set labels.
	Early *EarlyFilters
	// Foreign, when set, reads rows other agents wrote (see package
	// otheragents); nil reads them as vloki writes them.
	Foreign *otheragents.Config
	// hidden: Hide narrowed Pushdown already.
	hidden bool
	// wide is Pushdown before Narrow or Within changed it (nil: as planned).
	wide logsql.Filter
}

// BareSelector reports a stream selector over vloki's own rows that no
// delete request narrows, followed by nothing but drop stages of plain
// names (Explore's `| drop __error__`): its entries are exactly the
// selected streams' acknowledged ones, less the labels dropped.
func (q *LogQuery) BareSelector() (dropped []string, ok bool) {
	if q.hidden || q.Foreign != nil {
		return nil, false
	}
	for _, st := range q.Stages {
		d, isDrop := st.(DropStage)
		if !isDrop {
			return nil, false
		}
		for _, it := range d.Items {
			if it.Matcher != nil {
				return nil, false
			}
			dropped = append(dropped, it.Name)
		}
	}
	return dropped, true
}

// FiltersLocally reports stages that may drop rows the pushdown kept: a
// label filter or line filter it could not push down exactly.
func (q *LogQuery) FiltersLocally() bool {
	if q.PushdownExact {
		return false
	}
	for _, st := range q.Stages {
		switch st.(type) {
		case LabelFilterStage, LineStage:
			return true
		}
	}
	return false
}
