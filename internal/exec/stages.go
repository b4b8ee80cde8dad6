package exec

import (
	"slices"
	"strings"

	"github.com/grafana/regexp"

	"github.com/vloki/vloki/internal/exec/logrow"
	"github.com/vloki/vloki/internal/logql"

	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/plan"
)

// ansiRegexp is the ansi-regex pattern Loki's decolorize stage removes.
var ansiRegexp = regexp.MustCompile("[\u001B\u009B][[\\]()#;?]*(?:(?:(?:[a-zA-Z\\d]*(?:;[a-zA-Z\\d]*)*)?\u0007)|(?:(?:\\d{1,4}(?:;\\d{0,4})*)?[\\dA-PRZcf-ntqry=><~]))")

// Loki's error labels.
const (
	errorLabel         = "__error__"
	errorDetailsLabel  = "__error_details__"
	preserveErrorLabel = "__preserve_error__"
)

// entryState is one entry going through the local stages.
type entryState struct {
	row        *logrow.Row
	line       string            // the line as the stages have changed it
	hints      *plan.ParserHints // nil: parsers extract everything
	parsed     model.Labels      // in extraction order
	err        string
	errDetails string
	// preserve marks a parser error the query groups by: Loki labels it
	// __preserve_error__="true" and lets it through as a series.
	preserve bool
	deleted  []string // stream labels and structured metadata removed
	// unparsed are parsed labels a drop or keep removed: Loki's later
	// parsers skip them all the same.
	unparsed []string
	// early are the filters parsers check as they set labels (nil: none);
	// dropped is set when one fails, which drops the entry.
	early   *plan.EarlyFilters
	dropped bool
}

// keepParsing checks the early filter of a label a parser just set; false
// drops the entry, as Loki's parsers do.
func (s *entryState) keepParsing(name string) bool {
	if s.early.Check(name, s) {
		return true
	}
	s.dropped = true
	return false
}

// wasExtracted reports a name a parser or format set for this entry.
func (s *entryState) wasExtracted(name string) bool {
	if _, ok := s.parsed.Get(name); ok {
		return true
	}
	return slices.Contains(s.unparsed, name)
}

// Label is the pipeline's view of a label: parsed labels first, then
// structured metadata, then stream labels, less deleted ones.
func (s *entryState) Label(name string) (string, bool) {
	switch name {
	case errorLabel:
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
	if v, ok := s.row.Metadata.Get(name); ok {
		return v, true
	}
	return s.row.Labels.Get(name)
}

// del removes a label as Loki's drop does; for the error labels that means
// clearing the error.
func (s *entryState) del(name string) {
	switch name {
	case errorLabel:
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
func (s *entryState) drop(items []logql.LabelSelection) {
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
func (s *entryState) keep(items []logql.LabelSelection) {
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
func (s *entryState) labelNames() []string {
	var out []string
	for _, set := range []model.Labels{s.row.Labels, s.row.Metadata, s.parsed} {
		for _, l := range set {
			if _, ok := s.Label(l.Name); ok && !slices.Contains(out, l.Name) {
				out = append(out, l.Name)
			}
		}
	}
	return out
}

// remaining returns a label set less the deleted labels.
func (s *entryState) remaining(ls model.Labels) model.Labels {
	if len(s.deleted) == 0 {
		return ls
	}
	return ls.Without(s.deleted...)
}

// parserError records a parser's failure, as Loki's parsers do.
func (s *entryState) parserError(kind, details string) {
	if s.row.ParsedAtIngestion {
		// Another agent parsed this row when storing it: nothing to report.
		return
	}
	// Loki's addErrLabel keeps earlier details when it has none.
	s.err = kind
	if details != "" {
		s.errDetails = details
	}
	if s.hints != nil && s.hints.PreserveError {
		s.preserve = true
	}
}

// SetErrorOnce records a filter's conversion error unless one is set.
func (s *entryState) SetErrorOnce(kind, details string) {
	if s.err == "" {
		s.err, s.errDetails = kind, details
	}
}

// extract sets a parsed label unless one of that name was extracted
// already: as in Loki, the first parser (and the first key) wins. false
// when an early filter on the label drops the entry.
func (s *entryState) extract(name, value string) bool {
	if s.wasExtracted(name) {
		return true
	}
	if s.row.Foreign && s.storedField(name) {
		// The agent that stored the row extracted this one already.
		return true
	}
	if s.storedField(name) {
		// A parsed label replaces structured metadata of the same name
		// (Loki's LabelsBuilder.Set): metadata "level_extracted" (renamed
		// at ingestion) gives way to a parsed level renamed the same way.
		s.deleted = append(s.deleted, name)
	}
	s.parsed = append(s.parsed, model.Label{Name: name, Value: value})
	return s.keepParsing(name)
}

// baseOrMetadataHas is Loki's test for the _extracted suffix.
func (s *entryState) baseOrMetadataHas(name string) bool {
	if _, ok := s.row.Labels.Get(name); ok {
		// Stream labels stay in Loki's base even when dropped.
		return true
	}
	return !s.row.Foreign && s.storedField(name)
}

// storedField reports a structured metadata field the entry still has.
func (s *entryState) storedField(name string) bool {
	_, ok := s.row.Metadata.Get(name)
	return ok && !slices.Contains(s.deleted, name)
}

// runStages applies the local stages in order; false drops the entry.
func runStages(q *plan.LogQuery, s *entryState) bool {
	s.line = s.row.Line
	for _, st := range q.Stages {
		switch st := st.(type) {
		case plan.LineStage:
			if !st.M.Match(s.line) {
				return false
			}
		case plan.DecolorizeStage:
			s.line = ansiRegexp.ReplaceAllString(s.line, "")
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

// outputParsed is the parsed labels an entry carries out, sorted, with the
// error labels.
func (s *entryState) outputParsed() model.Labels {
	out := make(model.Labels, 0, len(s.parsed)+2)
	out = append(out, s.parsed...)
	if s.err != "" {
		out = append(out, model.Label{Name: errorLabel, Value: s.err})
	}
	if s.errDetails != "" {
		out = append(out, model.Label{Name: errorDetailsLabel, Value: s.errDetails})
	}
	if s.preserve {
		out = append(out, model.Label{Name: preserveErrorLabel, Value: "true"})
	}
	out.Sort()
	return out
}

// wants reports whether the hints ask a parser for this label.
func (s *entryState) wants(name string) bool {
	return s.hints == nil || s.hints.Required == nil || slices.Contains(s.hints.Required, name)
}

// hintsLimit reports that parsers extract only the hinted labels.
func (s *entryState) hintsLimit() bool { return s.hints != nil && s.hints.Required != nil }

// wantsBytes is wants for a name held in bytes, without allocating.
func (s *entryState) wantsBytes(name []byte) bool {
	for _, r := range s.hints.Required {
		if string(name) == r {
			return true
		}
	}
	return false
}

// wantsPrefix reports whether a nested JSON object may hold a wanted label.
func (s *entryState) wantsPrefix(prefix string) bool {
	if s.hints == nil || s.hints.Required == nil {
		return true
	}
	for _, r := range s.hints.Required {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}

// parserIdle is Loki's NoLabels: nothing is wanted, or everything wanted
// was extracted already.
func (s *entryState) parserIdle() bool {
	if s.hints == nil {
		return false
	}
	return s.hints.NoLabels || s.allWantedExtracted()
}

func (s *entryState) allWantedExtracted() bool {
	if s.hints == nil || len(s.hints.Required) == 0 {
		return false
	}
	for _, r := range s.hints.Required {
		if !s.wasExtracted(r) {
			return false
		}
	}
	return true
}
