package exec

import (
	"slices"

	"github.com/grafana/regexp"
	"strings"

	"github.com/vloki/vloki/internal/model"
	"github.com/vloki/vloki/internal/plan"
)

// ansiRegexp is the ansi-regex pattern Loki's decolorize stage removes.
var ansiRegexp = regexp.MustCompile("[\u001B\u009B][[\\]()#;?]*(?:(?:(?:[a-zA-Z\\d]*(?:;[a-zA-Z\\d]*)*)?\u0007)|(?:(?:\\d{1,4}(?:;\\d{0,4})*)?[\\dA-PRZcf-ntqry=><~]))")

// Loki's error labels.
const (
	errorLabel        = "__error__"
	errorDetailsLabel = "__error_details__"
)

// entryState is one entry going through the local stages.
type entryState struct {
	row        *logRow
	line       string            // the line as the stages have changed it
	hints      *plan.ParserHints // nil: parsers extract everything
	parsed     model.Labels      // in extraction order
	err        string
	errDetails string
	dropped    []string
}

// lookup returns a label as the pipeline sees it: parsed labels first,
// then structured metadata, then stream labels; dropped ones are "".
func (s *entryState) lookup(name string) string {
	if slices.Contains(s.dropped, name) {
		return ""
	}
	switch name {
	case errorLabel:
		return s.err
	case errorDetailsLabel:
		return s.errDetails
	}
	if v, ok := s.parsed.Get(name); ok {
		return v
	}
	return s.row.lookup(name)
}

// Label is the pipeline's view of a label for label filters.
func (s *entryState) Label(name string) (string, bool) {
	if slices.Contains(s.dropped, name) {
		return "", false
	}
	switch name {
	case errorLabel:
		return s.err, s.err != ""
	case errorDetailsLabel:
		return s.errDetails, s.errDetails != ""
	}
	if v, ok := s.parsed.Get(name); ok {
		return v, true
	}
	if v, ok := s.row.metadata.Get(name); ok {
		return v, true
	}
	return s.row.labels.Get(name)
}

// SetErrorOnce records a filter's conversion error unless one is set.
func (s *entryState) SetErrorOnce(kind, details string) {
	if s.err == "" {
		s.err, s.errDetails = kind, details
	}
}

// extract sets a parsed label unless one of that name was extracted
// already: as in Loki, the first parser (and the first key) wins.
func (s *entryState) extract(name, value string) {
	if _, ok := s.parsed.Get(name); ok {
		return
	}
	s.parsed = append(s.parsed, model.Label{Name: name, Value: value})
}

// baseOrMetadataHas is Loki's test for the _extracted suffix.
func (s *entryState) baseOrMetadataHas(name string) bool {
	if _, ok := s.row.labels.Get(name); ok {
		return true
	}
	_, ok := s.row.metadata.Get(name)
	return ok
}

// runStages applies the local stages in order; false drops the entry.
func runStages(q *plan.LogQuery, s *entryState) bool {
	s.line = s.row.line
	for _, st := range q.Stages {
		switch st := st.(type) {
		case plan.LineStage:
			if !st.M.Match(s.line) {
				return false
			}
		case plan.DecolorizeStage:
			s.line = ansiRegexp.ReplaceAllString(s.line, "")
		case plan.DropStage:
			s.dropped = append(s.dropped, st.Names...)
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
			default:
				parseJSON(s)
			}
		}
	}
	return true
}

// outputParsed is the parsed labels an entry carries out, sorted, with the
// error labels and without dropped ones.
func (s *entryState) outputParsed(drop []string) model.Labels {
	out := make(model.Labels, 0, len(s.parsed)+2)
	for _, l := range s.parsed {
		if !slices.Contains(drop, l.Name) {
			out = append(out, l)
		}
	}
	if s.err != "" && !slices.Contains(drop, errorLabel) {
		out = append(out, model.Label{Name: errorLabel, Value: s.err})
		if s.errDetails != "" && !slices.Contains(drop, errorDetailsLabel) {
			out = append(out, model.Label{Name: errorDetailsLabel, Value: s.errDetails})
		}
	}
	out.Sort()
	return out
}

// wants reports whether the hints ask a parser for this label.
func (s *entryState) wants(name string) bool {
	return s.hints == nil || s.hints.Required == nil || slices.Contains(s.hints.Required, name)
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
		if _, ok := s.parsed.Get(r); !ok {
			return false
		}
	}
	return true
}
