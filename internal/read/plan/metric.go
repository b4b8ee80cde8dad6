package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/grafana/regexp"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/storage/otheragents"
	"github.com/vloki/vloki/internal/storage/schema"
)

// Metric is a compiled metric expression.
type Metric interface{ metric() }

// RangeAgg is a range aggregation over a log query, computed from its
// rows.
type RangeAgg struct {
	Op     logql.RangeOp
	Log    *LogQuery
	Range  int64 // ns
	Offset int64 // ns
	// Param is quantile_over_time's quantile.
	Param float64
	// Unwrap, when set, takes each entry's sample value from a label.
	Unwrap *Unwrap
	// Grouping is the range aggregation's own by/without.
	Grouping *logql.Grouping
	// Hints limit what parsers extract, as Loki's parser hints do.
	Hints *ParserHints
	// Early are the filters parsers check as they set labels, when
	// Loki's hints carry them (see ParserHints.CheckEarly).
	Early *EarlyFilters
	// AbsentLabels label absent_over_time's samples.
	AbsentLabels lokidata.Labels
	// FromRows keeps the evaluation on the rows (tests compare the
	// bucketed evaluation against it).
	FromRows bool
	// WholeSpan reads every row from the first window to the last, even
	// where the windows leave gaps (tests compare reading only the
	// windows against it).
	WholeSpan bool
	// Source is the log query and unwrap as LogQL prints them, after the
	// line_format stages Loki drops (SamplesKey); empty when unknown.
	Source string
}

// Unwrap is `| unwrap [conversion(]label[)]` and the filters after it.
type Unwrap struct {
	Label       string
	Conversion  string // "", "bytes", "duration" or "duration_seconds"
	PostFilters []logql.LabelFilter
}

// ParserHints are Loki's parser label hints for a metric query: when a sum
// wraps the range aggregation, parsers extract only the labels it groups by
// and single-label filters name; with no such labels they do not run.
// The hints also decide whether __error__ is an error or a grouping label.
type ParserHints struct {
	NoLabels      bool
	Required      []string // nil: extract everything
	PreserveError bool
	// CheckEarly: parsers check the early filters. Loki's hints carry
	// them when they do not limit extraction, and when the extraction
	// keeps no labels but filters read some.
	CheckEarly bool
}

// EarlyFilters are the filters parsers check as they set labels, nil
// when Loki's hints for this extraction carry none: hints that limit
// extraction to grouping labels leave them out.
func (ra *RangeAgg) EarlyFilters() *EarlyFilters {
	if ra.Hints == nil || ra.Hints.CheckEarly {
		return ra.Early
	}
	return nil
}

// VectorAgg aggregates the samples of each step.
type VectorAgg struct {
	Op       logql.VectorOp
	Grouping logql.Grouping
	Param    float64
	Inner    Metric
}

// QuerierAnswer is an expression Loki's frontend hands to a querier: the
// number of series of its answer, per sub-query, meets max_query_series.
// Whole: the mapper divided nothing, so the querier's answer is the
// sub-query's answer as it is (otherwise the frontend reads it step by
// step, see read/metric's jamTwins).
type QuerierAnswer struct {
	Inner Metric
	Whole bool
}

// Unmarked returns m without its QuerierAnswer mark.
func Unmarked(m Metric) Metric {
	if q, ok := m.(*QuerierAnswer); ok {
		return q.Inner
	}
	return m
}

// BinOp combines two metrics.
type BinOp struct {
	Op       logql.BinaryOp
	LHS, RHS Metric
	Bool     bool
	Matching *logql.VectorMatching
	// NoOptions marks the frontend's own divisions: Loki matches their
	// samples on every label, empty values included, and checks no
	// cardinality. Parsed operations match on labels with values.
	NoOptions bool
}

// SumOfRange is `sum by (labels) (<range aggregation>)` computed inside
// VictoriaLogs: counts and byte sums per time bucket and label group.
type SumOfRange struct {
	Range *RangeAgg
	By    []string
	// LinesOnly: the byte sums hold only if no row in the range was stored
	// without a line (data other agents wrote: vloki rebuilds such lines,
	// so only it knows their length); the executor checks, and sums rows
	// otherwise.
	LinesOnly bool
}

// LabelReplace rewrites one label of each series from another, as
// Prometheus' label_replace.
type LabelReplace struct {
	Inner            Metric
	Dst, Replacement string
	Src              string
	Re               *regexp.Regexp
}

// Scalar is a number.
type Scalar struct{ V float64 }

// Vector is vector(V): one series without labels at every step.
type Vector struct{ V float64 }

func (*RangeAgg) metric()      {}
func (*VectorAgg) metric()     {}
func (*BinOp) metric()         {}
func (*Scalar) metric()        {}
func (*SumOfRange) metric()    {}
func (*Vector) metric()        {}
func (*LabelReplace) metric()  {}
func (*QuerierAnswer) metric() {}

// Mapping is a metric query as Loki's query frontend mapped it for
// sharding (frontend.Shard), or as a querier runs it unmapped
// (QuerierMapping).
type Mapping struct {
	Expr logql.SampleExpr
	// Downstream are the expressions handed to queriers: their answers
	// are what max_query_series limits.
	Downstream map[logql.SampleExpr]bool
	// Generated are the divisions the frontend built itself: they carry no
	// binary-operation options, which changes how Loki matches them.
	Generated map[logql.SampleExpr]bool
	// Undivided: the mapper changed nothing, and the querier's answer is
	// passed on as it is.
	Undivided bool
}

// QuerierMapping is e as Loki's querier runs it when no frontend mapped
// it (the ruler evaluates that way): the whole answer is the querier's,
// limited by max_query_series as a whole.
func QuerierMapping(e logql.SampleExpr) Mapping {
	return Mapping{Expr: e, Downstream: map[logql.SampleExpr]bool{e: true}, Generated: map[logql.SampleExpr]bool{}, Undivided: true}
}

// CompileMetric plans a mapped metric query.
func CompileMetric(mp Mapping, fc *otheragents.Config) (Metric, error) {
	c := &compiler{downstream: mp.Downstream, generated: mp.Generated, foreign: fc}
	m, err := c.metric(mp.Expr)
	if qa, ok := m.(*QuerierAnswer); ok && mp.Undivided {
		qa.Whole = true
	}
	return m, err
}

// compiler plans the rewritten expression.
type compiler struct {
	downstream map[logql.SampleExpr]bool
	generated  map[logql.SampleExpr]bool
	foreign    *otheragents.Config
}

// metric plans e; what Loki hands to a querier is marked so that its
// answer meets max_query_series.
func (c *compiler) metric(e logql.SampleExpr) (Metric, error) {
	m, err := c.node(e)
	if err != nil || !c.downstream[e] {
		return m, err
	}
	return &QuerierAnswer{Inner: m}, nil
}

func (c *compiler) node(e logql.SampleExpr) (Metric, error) {
	switch e := e.(type) {
	case *logql.LiteralExpr:
		return &Scalar{V: e.Val}, nil
	case *logql.VectorExpr:
		return &Vector{V: e.Val}, nil
	case *logql.RangeAggregationExpr:
		return c.rangeAgg(e)
	case *logql.VectorAggregationExpr:
		return c.vectorAgg(e)
	case *logql.BinOpExpr:
		return c.binOp(e)
	case *logql.LabelReplaceExpr:
		inner, err := c.metric(e.Left)
		if err != nil {
			return nil, err
		}
		return &LabelReplace{Inner: inner, Dst: e.Dst, Replacement: e.Replacement, Src: e.Src, Re: e.Re}, nil
	}
	return nil, &logql.UnsupportedError{What: fmt.Sprintf("the expression %s", e)}
}

func (c *compiler) rangeAgg(e *logql.RangeAggregationExpr) (Metric, error) {
	if _, ok := rangeOpPlans[e.Op]; !ok {
		return nil, &logql.UnsupportedError{What: e.Op.String()}
	}
	sel := withoutUnusedLineFormat(e.Op, e.Left.Left)
	lq, err := CompileLog(sel, c.foreign)
	if err != nil {
		return nil, err
	}
	ra := &RangeAgg{Op: e.Op, Log: lq, Range: int64(e.Left.Interval), Offset: int64(e.Left.Offset), Grouping: e.Grouping,
		Source: sel.String() + e.Left.Unwrap.String()}
	if e.Param != nil {
		ra.Param = *e.Param
	}
	ra.Early = lq.Early
	if u := e.Left.Unwrap; u != nil {
		ra.Unwrap = &Unwrap{Label: u.Identifier, Conversion: u.Operation, PostFilters: u.PostFilters}
		if len(u.PostFilters) == 1 {
			// Loki adds the unwrap's filter, reduced to one, to the stages.
			ra.Early = lq.Early.with(u.PostFilters[0])
		}
	}
	if e.Op == logql.OpAbsentOverTime {
		// Loki extracts absent_over_time's samples without labels.
		ra.Grouping = &logql.Grouping{}
		ra.AbsentLabels = absentLabels(e.Left.Left.Matchers())
	}
	if ra.Unwrap != nil || ra.Grouping != nil {
		ra.Hints = ra.hints(ra.Grouping)
	}
	return ra, nil
}

// absentLabels are the labels of absent_over_time's samples: the
// selector's equality matchers, less any name matched twice or otherwise.
func absentLabels(ms []*logql.Matcher) lokidata.Labels {
	var out lokidata.Labels
	var drop []string
	for _, m := range ms {
		if _, dup := out.Get(m.Name); m.Type == logql.MatchEqual && !dup {
			out = append(out, lokidata.Label{Name: m.Name, Value: m.Value})
		} else {
			drop = append(drop, m.Name)
		}
	}
	out = out.Without(drop...)
	out.Sort()
	return out
}

// withoutUnusedLineFormat drops the line_format stages whose line nothing
// reads, as Loki's engine optimises range aggregations other than those
// measuring lines (bytes_over_time, bytes_rate): a line_format stays only
// when a parser or a line filter follows it.
func withoutUnusedLineFormat(op logql.RangeOp, sel logql.LogSelectorExpr) logql.LogSelectorExpr {
	p, ok := sel.(*logql.PipelineExpr)
	if !ok || op.LineBytes() {
		return sel
	}
	var kept []logql.Stage
	for i, st := range p.Pipeline {
		if _, isFmt := st.(*logql.LineFmtExpr); isFmt && !logql.ReadsLineAfter(p.Pipeline[i:]) {
			continue
		}
		kept = append(kept, st)
	}
	if len(kept) == len(p.Pipeline) {
		return sel
	}
	if len(kept) == 0 {
		return p.Left
	}
	return &logql.PipelineExpr{Left: p.Left, Pipeline: kept}
}

// StreamBucketable reports that VictoriaLogs can count this range
// aggregation's entries per time bucket, stream and structured metadata
// exactly: no unwrap, no local stage that changes lines or labels, no
// grouping.
func (ra *RangeAgg) StreamBucketable() bool {
	return Bucketable(ra.Op) && ra.Unwrap == nil && ra.Log.PushdownExact && len(ra.Log.Drop) == 0 &&
		ra.Grouping == nil && ra.Hints == nil && !ra.FromRows && ra.Log.foreignBuckets(ra.Op, nil, true, false)
}

// foreignBuckets reports that VictoriaLogs' buckets grouped by these
// labels (or per series) also hold for data other agents wrote: the line
// bytes of rows stored without a line, detected_level and renamed or
// derived grouping labels are only known to vloki. linesChecked: the
// executor makes sure no row lacks a line.
func (lq *LogQuery) foreignBuckets(op logql.RangeOp, by []string, perSeries, linesChecked bool) bool {
	f := lq.Foreign
	if f == nil {
		return true
	}
	if (op.LineBytes() && !linesChecked) || (perSeries && f.Levels != nil) {
		return false
	}
	for _, b := range by {
		if f.Derived(b) {
			return false
		}
	}
	return true
}

// canInjectGrouping reports whether a parent sum's grouping replaces the
// range aggregation's at extraction, as Loki injects it.
func (ra *RangeAgg) canInjectGrouping() bool {
	return rangeOpPlans[ra.Op].sumGrouping && ra.Grouping == nil
}

// ExtractGrouping is the grouping the sample extraction applies: the
// series labels are reduced to it (an unwrapped label always goes).
func (ra *RangeAgg) ExtractGrouping(g *logql.Grouping) (groups []string, without, noLabels bool) {
	if g != nil {
		groups, without = g.Groups, g.Without
		noLabels = len(groups) == 0 && !without
	}
	if ra.Unwrap != nil && (len(groups) == 0 || without) {
		groups, without = append(slices.Clone(groups), ra.Unwrap.Label), true
	}
	return groups, without, noLabels
}

// FetchFields are the fields the local evaluation reads from each row, nil
// for all of them. With parser hints, only the hinted labels reach the
// answer or a stage, so other structured metadata need not be read — but
// a hinted name must be, as a stored label of that name makes the parser
// rename its own (name_extracted). Templates (line_format, label_format)
// may read any label, and data other agents wrote is renamed at read:
// all fields then.
func (ra *RangeAgg) FetchFields() []string {
	if ra.Hints == nil || (ra.Hints.Required == nil && !ra.Hints.NoLabels) || ra.Log.Foreign != nil {
		return nil
	}
	for _, st := range ra.Log.Stages {
		switch st.(type) {
		case LineFormatStage, LabelFormatStage:
			return nil
		}
	}
	return append([]string{"_time", "_stream", "_msg", schema.EmptyLineField, schema.SeqField}, ra.Hints.Required...)
}

// hints computes Loki's parser hints for extraction under grouping g.
func (ra *RangeAgg) hints(g *logql.Grouping) *ParserHints {
	groups, without, noLabels := ra.ExtractGrouping(g)
	required := requiredLabelNames(ra.Log.Stages)
	unwrapLabel := ""
	if ra.Unwrap != nil {
		required = append(required, filterLabelNames(ra.Unwrap.PostFilters)...)
		unwrapLabel = ra.Unwrap.Label
	}
	return parserHints(required, groups, without, noLabels, unwrapLabel)
}

func (c *compiler) vectorAgg(e *logql.VectorAggregationExpr) (Metric, error) {
	if e.Op.Refusal() != nil {
		// Loki refuses it before it plans (logql.Refusal), and vloki does
		// not evaluate it.
		return nil, &logql.UnsupportedError{What: e.Op.String()}
	}
	inner, err := c.metric(e.Left)
	if err != nil {
		return nil, err
	}
	if s := sumOfRange(e, inner); s != nil {
		return s, nil
	}
	if ra, ok := inner.(*RangeAgg); ok && e.Op == logql.OpSum && ra.canInjectGrouping() {
		ra.InjectSumGrouping(e.Grouping)
	}
	v := &VectorAgg{Op: e.Op, Inner: inner}
	if e.Grouping != nil {
		v.Grouping = *e.Grouping
	}
	if e.Param != nil {
		v.Param = *e.Param
	}
	return v, nil
}

func (c *compiler) binOp(e *logql.BinOpExpr) (Metric, error) {
	lhs, err := c.metric(e.LHS)
	if err != nil {
		return nil, err
	}
	rhs, err := c.metric(e.RHS)
	if err != nil {
		return nil, err
	}
	return &BinOp{Op: e.Op, LHS: lhs, RHS: rhs, Bool: e.ReturnBool, Matching: e.Matching, NoOptions: c.generated[e]}, nil
}

// sumOfRange recognises sum [by (...)] over a range aggregation whose log
// query VictoriaLogs evaluates exactly, where no grouping label is dropped.
func sumOfRange(e *logql.VectorAggregationExpr, inner Metric) *SumOfRange {
	ra, ok := inner.(*RangeAgg)
	if !ok || e.Op != logql.OpSum || (e.Grouping != nil && e.Grouping.Without) || !Bucketable(ra.Op) || ra.Unwrap != nil {
		return nil
	}
	if !ra.Log.PushdownExact && !(ra.Log.ExactButParsers && ra.parsersIdleUnder(e.Grouping)) {
		return nil
	}
	var by []string
	if e.Grouping != nil {
		by = e.Grouping.Groups
	}
	linesOnly := ra.Log.Foreign != nil && ra.Op.LineBytes()
	if !ra.Log.foreignBuckets(ra.Op, by, false, linesOnly) {
		return nil
	}
	for _, b := range by {
		for _, d := range ra.Log.Drop {
			if b == d {
				return nil
			}
		}
	}
	return &SumOfRange{Range: ra, By: by, LinesOnly: linesOnly}
}

// UnderSum is the range aggregation as a sum grouped by `by` reads it: with
// the sum's grouping injected where Loki injects it (a copy), else as it
// is. SumOfRange's rows path reads it so: per-group counts over a window,
// not per-stream rates added up, which round otherwise.
func (ra *RangeAgg) UnderSum(by []string) *RangeAgg {
	if !ra.canInjectGrouping() {
		return ra
	}
	cp := *ra
	cp.InjectSumGrouping(&logql.Grouping{Groups: by})
	return &cp
}

// InjectSumGrouping gives the range aggregation the grouping of the sum
// over it (nil: none): Loki extracts the samples already grouped as the
// sum groups, one series per group, its samples summed in time order.
func (ra *RangeAgg) InjectSumGrouping(sum *logql.Grouping) {
	g := &logql.Grouping{}
	if sum != nil {
		g = &logql.Grouping{Groups: sum.Groups, Without: sum.Without}
	}
	ra.Grouping, ra.Hints = g, ra.hints(g)
}

// parsersIdleUnder reports that under a sum grouped by g the parsers
// extract nothing (Loki's NoLabels hints: no grouping label, no filter),
// so they neither add labels nor drop or mark rows.
func (ra *RangeAgg) parsersIdleUnder(g *logql.Grouping) bool {
	if ra.Grouping != nil || (g != nil && len(g.Groups) > 0) {
		return false
	}
	h := ra.hints(&logql.Grouping{})
	return h != nil && h.NoLabels
}

// parserHints mirrors log.NewParserHint: the labels parsers must extract,
// or nil for all of them.
func parserHints(required, groups []string, without, noLabels bool, metricLabel string) *ParserHints {
	var hints []string
	for _, n := range append(append(required, groups...), metricLabel) {
		hints = appendHint(hints, n)
		if base, ok := strings.CutSuffix(n, "_extracted"); ok {
			hints = appendHint(hints, base)
		}
	}
	preserve := slices.Contains(hints, "__error__")
	switch {
	case noLabels && len(hints) == 0:
		return &ParserHints{NoLabels: true}
	case noLabels:
		return &ParserHints{Required: hints, PreserveError: preserve, CheckEarly: true}
	case without || len(groups) == 0:
		return nil
	}
	return &ParserHints{Required: hints, PreserveError: preserve}
}

func appendHint(hints []string, n string) []string {
	if n == "" || slices.Contains(hints, n) {
		return hints
	}
	return append(hints, n)
}

// requiredLabelNames are the labels the stages read, as Loki's
// RequiredLabelNames count them for parser hints.
func requiredLabelNames(stages []Stage) []string {
	var out []string
	for _, st := range stages {
		switch st := st.(type) {
		case LabelFilterStage:
			out = append(out, filterLabelNames([]logql.LabelFilter{st.F})...)
		case LineFormatStage:
			out = append(out, st.T.Fields()...)
		case LabelFormatStage:
			for _, f := range st.Formats {
				if f.Rename {
					out = append(out, f.Value)
				} else {
					out = append(out, f.Tmpl.Fields()...)
				}
			}
		}
	}
	return out
}

func filterLabelNames(fs []logql.LabelFilter) []string {
	var out []string
	for _, f := range fs {
		switch s := f.(type) {
		case *logql.StringLabelFilter:
			out = append(out, s.Name)
		case *logql.CompareLabelFilter:
			out = append(out, s.Name)
		case *logql.IPLabelFilter:
			out = append(out, s.Name)
		case *logql.BinaryLabelFilter:
			out = append(out, filterLabelNames([]logql.LabelFilter{s.Left, s.Right})...)
		}
	}
	return out
}
