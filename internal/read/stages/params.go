package stages

import (
	"github.com/grafana/jsonparser"
	"github.com/vloki/vloki/internal/lang/logfmt"
	"github.com/vloki/vloki/internal/lang/logql"
)

// logfmtParserErr is the __error__ strict logfmt sets on a malformed pair.
const logfmtParserErr = "LogfmtParserErr"

// parseJSONParams extracts the listed paths as Loki's json parser with
// parameters does: objects as JSON text, null as "", a path not found as
// "" too; a line that does not start like JSON is an error.
func parseJSONParams(s *Entry, params []logql.LabelExtraction) {
	line := []byte(s.Line)
	if len(line) == 0 {
		return
	}
	if !validJSONStart(line) {
		s.parserError(jsonParserErr, "")
		return
	}
	paths := make([][]string, len(params))
	for i, p := range params {
		paths[i] = p.Path
	}
	matches := 0
	jsonparser.EachKey(line, func(idx int, data []byte, typ jsonparser.ValueType, err error) {
		if err != nil {
			s.parserError(jsonParserErr, err.Error())
			return
		}
		name := params[idx].Name
		if s.baseOrMetadataHas(name) {
			name += "_extracted"
		}
		switch typ {
		case jsonparser.Null:
			s.set(name, "")
		case jsonparser.Object:
			s.set(name, string(data))
		default:
			s.set(name, unescapeJSONString(data))
		}
		matches++
	}, paths...)
	if matches < len(params) {
		for _, p := range params {
			if _, ok := s.Label(p.Name); !ok {
				s.set(p.Name, "")
			}
		}
	}
}

func validJSONStart(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// parseLogfmtParams is Loki's logfmt with parameters: every listed label
// exists (empty until found); a key listed under another name is renamed;
// the last occurrence wins.
func parseLogfmtParams(s *Entry, e *logql.LogfmtExpr) {
	renames := map[string]string{}
	ids := map[string]bool{}
	for _, p := range e.Params {
		renames[p.Expression] = p.Name
		ids[p.Name] = true
		if !s.baseOrMetadataHas(p.Name) {
			s.set(p.Name, "")
		}
	}
	sc := logfmt.NewScanner([]byte(s.Line))
	for !sc.EOL() {
		key, value, ok := sc.Next()
		if !ok {
			if e.Strict && sc.Err() != "" {
				break
			}
			continue
		}
		name := sanitizeLabelKey(string(key))
		if name == "" {
			continue
		}
		if id, ok := renames[name]; ok {
			name = id
		}
		if !ids[name] {
			continue
		}
		if s.baseOrMetadataHas(name) {
			name += "_extracted"
			if s.wasExtracted(name) || !s.wants(name) {
				// Loki stops reading the line here.
				break
			}
		}
		if !validUTF8(value) {
			value = nil
		}
		s.set(name, string(value))
	}
	if e.Strict && sc.Err() != "" {
		s.parserError(logfmtParserErr, sc.Err())
	}
}

// parseUnpack reads a JSON object's string fields as labels when it holds
// a packed entry (`_entry`), which becomes the line.
func parseUnpack(s *Entry) {
	line := []byte(s.Line)
	if len(line) == 0 {
		return
	}
	if line[0] != '{' {
		s.parserError(jsonParserErr, "expecting json object(6), but it is not")
		return
	}
	var labels []string
	var entry []byte
	packed := false
	err := jsonparser.ObjectEach(line, func(key, value []byte, typ jsonparser.ValueType, _ int) error {
		if typ != jsonparser.String {
			return nil
		}
		if string(key) == "_entry" {
			u, err := jsonparser.Unescape(value, nil)
			if err != nil {
				return err
			}
			entry, packed = u, true
			return nil
		}
		name := string(key)
		if s.baseOrMetadataHas(name) {
			name += "_extracted"
		}
		if !s.wants(name) || s.wasExtracted(name) {
			return nil
		}
		labels = append(labels, sanitizeLabelKey(name), unescapeJSONString(value))
		return nil
	})
	if err != nil {
		s.parserError(jsonParserErr, err.Error())
		return
	}
	if !packed {
		return
	}
	for i := 0; i < len(labels); i += 2 {
		s.set(labels[i], labels[i+1])
		if !s.keepParsing(labels[i]) {
			return
		}
	}
	s.Line = string(entry)
}
