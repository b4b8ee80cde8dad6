package stages

import (
	"slices"

	"github.com/vloki/vloki/internal/lang/logql"
	"github.com/vloki/vloki/internal/lang/logtmpl"
	"github.com/vloki/vloki/internal/lokidata"
)

// templateFormatErr is the __error__ a failing template sets.
const templateFormatErr = "TemplateFormatErr"

// lineFormat replaces the line by the template's output; on failure the
// line stays and the entry carries the error.
func (s *Entry) lineFormat(t *logtmpl.Template) {
	out, err := t.Execute(s.labelMap(), s.Line, s.Row.TimestampNs)
	if err != nil {
		s.err, s.errDetails = templateFormatErr, err.Error()
		return
	}
	s.Line = out
}

// labelFormat applies renames and templates in order. Templates read the
// labels as they stood at the first template of the stage, as Loki's do.
func (s *Entry) labelFormat(formats []logql.LabelFmt) {
	var data map[string]string
	for _, f := range formats {
		if f.Rename {
			if v, ok := s.Label(f.Value); ok {
				s.set(f.Name, v)
				s.del(f.Value)
			}
			continue
		}
		if len(data) == 0 {
			data = s.labelMap()
		}
		out, err := f.Tmpl.Execute(data, s.Line, s.Row.TimestampNs)
		if err != nil {
			s.err, s.errDetails = templateFormatErr, err.Error()
			continue
		}
		s.set(f.Name, out)
	}
}

// set gives a label a parsed value, which hides a stream label or
// structured metadata of the same name.
func (s *Entry) set(name, value string) {
	if s.baseOrMetadataHas(name) && !slices.Contains(s.deleted, name) {
		s.deleted = append(s.deleted, name)
	}
	for i := range s.parsed {
		if s.parsed[i].Name == name {
			s.parsed[i].Value = value
			return
		}
	}
	s.parsed = append(s.parsed, lokidata.Label{Name: name, Value: value})
}

// labelMap is the entry's labels as templates see them, error labels
// included.
func (s *Entry) labelMap() map[string]string {
	m := make(map[string]string, len(s.Row.Labels)+len(s.Row.Metadata)+len(s.parsed)+2)
	for _, name := range s.labelNames() {
		m[name], _ = s.Label(name)
	}
	if s.err != "" {
		m[ErrorLabel] = s.err
	}
	if s.errDetails != "" {
		m[errorDetailsLabel] = s.errDetails
	}
	return m
}
