// Package stages runs a log query's local stages over one row, as Loki's
// log pipeline does: line filters, parsers (json, logfmt, regexp, pattern,
// unpack) under the query's extraction hints and early label filters,
// formats, drop and keep, label filters, and the unwrap that turns an
// entry into a metric sample. DetectFields parses a line as Loki's
// detected_fields does, with the same parsers.
package stages

import (
	"slices"
	"strings"

	"github.com/grafana/regexp"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/read/logrow"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/plan"
)

// ansiRegexp is the ansi-regex pattern Loki's decolorize stage removes.
var ansiRegexp = regexp.MustCompile("[\u001B\u009B][[\\]()#;?]*(?:(?:(?:[a-zA-Z\\d]*(?:;[a-zA-Z\\d]*)*)?\u0007)|(?:(?:\\d{1,4}(?:;\\d{0,4})*)?[\\dA-PRZcf-ntqry=><~]))")

// Loki's error labels.
const (
	ErrorLabel         = "__error__"
	errorDetailsLabel  = "__error_details__"
	PreserveErrorLabel = "__preserve_error__"
)

// Entry is one entry going through the local stages. The caller sets
// Row (and Hints and Early when the query has them); Line is the line as
// the stages left it.
type Entry struct {
	Row        *logrow.Row
	Line       string            // the line as the stages have changed it
	Hints      *plan.ParserHints // nil: parsers extract everything
	parsed     lokidata.Labels   // in extraction order
	err        string
	errDetails string
	// preserve marks a parser error the query groups by: Loki labels it
	// __preserve_error__="true" and lets it through as a series.
	preserve bool
	deleted  []string // stream labels and structured metadata removed
	// unparsed are parsed labels a drop or keep removed: Loki's later
	// parsers skip them all the same.
	unparsed []string
	// Early are the filters parsers check as they set labels (nil: none);
	// dropped is set when one fails, which drops the entry.
	Early   *plan.EarlyFilters
	dropped bool
}

// keepParsing checks the early filter of a label a parser just set; false
// drops the entry, as Loki's parsers do.
func (s *Entry) keepParsing(name string) bool {
	if s.Early.Check(name, s) {
		return true
	}
	s.dropped = true
	return false
}

// wasExtracted reports a name a parser or format set for this entry.
func (s *Entry) wasExtracted(name string) bool {
	if _, ok := s.parsed.Get(name); ok {
		return true
	}
	return slices.Contains(s.unparsed, name)
}

// Label is the pipeline's view of a label: parsed labels first, then
// structured metadata, then stream labels, less deleted ones.
func (s *Entry) Label(name string) (string, bool) {
	switch name {
	case ErrorLabel:
		return s.err, s.err != ""
	case errorDetailsLabel:
		return s.errDetails, s.errDetails != ""
	}
	if v, ok := s.parsed.Get(name); ok {
		return v, true
	}
	if slices.Contains(s.deleted, name) {
		return "", false
	}
	if v, ok := s.Row.Metadata.Get(name); ok {
		return v, true
	}
	return s.Row.Labels.Get(name)
}

// del removes a label as Loki's drop does; for the error labels that means
// clearing the error.
func (s *Entry) del(name string) {
	switch name {
	case ErrorLabel:
		s.err = ""
		return
	case errorDetailsLabel:
		s.errDetails = ""
		return
	}
	if _, ok := s.parsed.Get(name); ok {
		s.parsed = s.parsed.Without(name)
		s.unparsed = append(s.unparsed, name)
	}
	if !slices.Contains(s.deleted, name) {
		s.deleted = append(s.deleted, name)
	}
}

// drop applies a drop stage.
func (s *Entry) drop(items []logql.LabelSelection) {
	for _, it := range items {
		if it.Matcher == nil {
			s.del(it.Name)
			continue
		}
		v, _ := s.Label(it.Name)
		if it.Matcher.Matches(v) {
			s.del(it.Name)
		}
	}
}

// keep applies a keep stage: every label not listed (or not matching its
// matcher) goes; the error labels stay.
func (s *Entry) keep(items []logql.LabelSelection) {
	for _, name := range s.labelNames() {
		v, _ := s.Label(name)
		kept := false
		for _, it := range items {
			if it.Name == name && (it.Matcher == nil || it.Matcher.Matches(v)) {
				kept = true
				break
			}
		}
		if !kept {
			s.del(name)
		}
	}
}

// labelNames lists the entry's current label names.
func (s *Entry) labelNames() []string {
	var out []string
	for _, set := range []lokidata.Labels{s.Row.Labels, s.Row.Metadata, s.parsed} {
		for _, l := range set {
			if _, ok := s.Label(l.Name); ok && !slices.Contains(out, l.Name) {
				out = append(out, l.Name)
			}
		}
	}
	return out
}

// remaining returns a label set less the deleted labels.
func (s *Entry) Remaining(ls lokidata.Labels) lokidata.Labels {
	if len(s.deleted) == 0 {
		return ls
	}
	return ls.Without(s.deleted...)
}

// parserError records a parser's failure, as Loki's parsers do.
func (s *Entry) parserError(kind, details string) {
	if s.Row.ParsedAtIngestion {
		// Another agent parsed this row when storing it: nothing to report.
		return
	}
	// Loki's addErrLabel keeps earlier details when it has none.
	s.err = kind
	if details != "" {
		s.errDetails = details
	}
	if s.Hints != nil && s.Hints.PreserveError {
		s.preserve = true
	}
}

// SetErrorOnce records a filter's conversion error unless one is set.
func (s *Entry) SetErrorOnce(kind, details string) {
	if s.err == "" {
		s.err, s.errDetails = kind, details
	}
}

// extract sets a parsed label unless one of that name was extracted
// already: as in Loki, the first parser (and the first key) wins. false
// when an early filter on the label drops the entry.
func (s *Entry) extract(name, value string) bool {
	if s.wasExtracted(name) {
		return true
	}
	if s.Row.Foreign && s.storedField(name) {
		// The agent that stored the row extracted this one already.
		return true
	}
	if s.storedField(name) {
		// A parsed label replaces structured metadata of the same name
		// (Loki's LabelsBuilder.Set): metadata "level_extracted" (renamed
		// at ingestion) gives way to a parsed level renamed the same way.
		s.deleted = append(s.deleted, name)
	}
	s.parsed = append(s.parsed, lokidata.Label{Name: name, Value: value})
	return s.keepParsing(name)
}

// baseOrMetadataHas is Loki's test for the _extracted suffix.
func (s *Entry) baseOrMetadataHas(name string) bool {
	if _, ok := s.Row.Labels.Get(name); ok {
		// Stream labels stay in Loki's base even when dropped.
		return true
	}
	return !s.Row.Foreign && s.storedField(name)
}

// storedField reports a structured metadata field the entry still has.
func (s *Entry) storedField(name string) bool {
	_, ok := s.Row.Metadata.Get(name)
	return ok && !slices.Contains(s.deleted, name)
}

// Run applies the local stages in order; false drops the entry.
func Run(q *plan.LogQuery, s *Entry) bool {
	s.Line = s.Row.Line
	for _, st := range q.Stages {
		switch st := st.(type) {
		case plan.LineStage:
			if !st.M.Match(s.Line) {
				return false
			}
		case plan.DecolorizeStage:
			s.Line = ansiRegexp.ReplaceAllString(s.Line, "")
		case plan.JSONParamsStage:
			if !s.parserIdle() {
				parseJSONParams(s, st.Params)
			}
		case plan.LogfmtStage:
			if s.parserIdle() {
				continue
			}
			if len(st.E.Params) > 0 {
				parseLogfmtParams(s, st.E)
			} else if parseLogfmtWith(s, st.E.Strict, st.E.KeepEmpty); s.dropped {
				return false
			}
		case plan.LineFormatStage:
			s.lineFormat(st.T)
		case plan.LabelFormatStage:
			s.labelFormat(st.Formats)
		case plan.DropStage:
			s.drop(st.Items)
		case plan.KeepStage:
			s.keep(st.Items)
		case plan.LabelFilterStage:
			if !st.F.Match(s) {
				return false
			}
		case plan.ParserStage:
			if s.parserIdle() {
				continue
			}
			switch st.Op {
			case "logfmt":
				parseLogfmt(s)
			case "regexp":
				parseRegexp(s, st.Expr)
			case "pattern":
				parsePattern(s, st.Expr)
			case "unpack":
				parseUnpack(s)
			default:
				parseJSON(s)
			}
			if s.dropped {
				return false
			}
		}
	}
	return true
}

// OutputParsed is the parsed labels an entry carries out, sorted, with the
// error labels.
func (s *Entry) OutputParsed() lokidata.Labels {
	out := make(lokidata.Labels, 0, len(s.parsed)+2)
	out = append(out, s.parsed...)
	if s.err != "" {
		out = append(out, lokidata.Label{Name: ErrorLabel, Value: s.err})
	}
	if s.errDetails != "" {
		out = append(out, lokidata.Label{Name: errorDetailsLabel, Value: s.errDetails})
	}
	if s.preserve {
		out = append(out, lokidata.Label{Name: PreserveErrorLabel, Value: "true"})
	}
	out.Sort()
	return out
}

// wants reports whether the hints ask a parser for this label.
func (s *Entry) wants(name string) bool {
	return s.Hints == nil || s.Hints.Required == nil || slices.Contains(s.Hints.Required, name)
}

// hintsLimit reports that parsers extract only the hinted labels.
func (s *Entry) hintsLimit() bool { return s.Hints != nil && s.Hints.Required != nil }

// wantsBytes is wants for a name held in bytes, without allocating.
func (s *Entry) wantsBytes(name []byte) bool {
	for _, r := range s.Hints.Required {
		if string(name) == r {
			return true
		}
	}
	return false
}

// wantsPrefix reports whether a nested JSON object may hold a wanted label.
func (s *Entry) wantsPrefix(prefix string) bool {
	if s.Hints == nil || s.Hints.Required == nil {
		return true
	}
	for _, r := range s.Hints.Required {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}

// parserIdle is Loki's NoLabels: nothing is wanted, or everything wanted
// was extracted already.
func (s *Entry) parserIdle() bool {
	if s.Hints == nil {
		return false
	}
	return s.Hints.NoLabels || s.allWantedExtracted()
}

func (s *Entry) allWantedExtracted() bool {
	if s.Hints == nil || len(s.Hints.Required) == 0 {
		return false
	}
	for _, r := range s.Hints.Required {
		if !s.wasExtracted(r) {
			return false
		}
	}
	return true
}
