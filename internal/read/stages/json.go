package stages

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/grafana/jsonparser"
)

const jsonParserErr = "JSONParserErr"

// jsonParse is one run of Loki's json parser (pkg/logql/log JSONParser,
// without extraction hints): nested keys are joined with "_", names
// sanitised, arrays and nulls skipped, a key that names a stream label or
// structured metadata gets the suffix "_extracted", and the first value of
// a key wins (across parser stages too). A malformed line keeps what was extracted before the error
// and sets __error__.
type jsonParse struct {
	s      *Entry
	prefix [][]byte
	// paths, when set, records each extracted label's JSON path.
	paths map[string][]string
}

// errAllExtracted ends parsing early once every wanted label is found.
var errAllExtracted = errors.New("all wanted labels extracted")

// errDropped ends parsing when an early filter dropped the entry.
var errDropped = errors.New("entry dropped by a label filter")

func parseJSON(s *Entry) {
	p := &jsonParse{s: s}
	err := jsonparser.ObjectEach([]byte(s.Line), p.visit)
	if err != nil && !errors.Is(err, errAllExtracted) && !errors.Is(err, errDropped) {
		s.parserError(jsonParserErr, err.Error())
	}
}

func (p *jsonParse) visit(key, value []byte, t jsonparser.ValueType, _ int) error {
	switch t {
	case jsonparser.String, jsonparser.Number, jsonparser.Boolean:
		if !p.setValue(key, value, t) {
			return errDropped
		}
	case jsonparser.Object:
		n := len(p.prefix)
		p.prefix = append(p.prefix, key)
		var err error
		if p.s.wantsPrefix(joinSanitized(p.prefix)) {
			err = jsonparser.ObjectEach(value, p.visit)
		}
		p.prefix = p.prefix[:n]
		return err
	}
	if p.s.allWantedExtracted() {
		return errAllExtracted
	}
	return nil
}

// setValue extracts one value; false when an early filter dropped the
// entry.
func (p *jsonParse) setValue(key, value []byte, t jsonparser.ValueType) bool {
	if len(p.prefix) == 0 && p.s.hintsLimit() && plainLabelName(key) && !p.s.wantsBytes(key) {
		// Most keys are valid label names already: one the hints leave out
		// is skipped without building its name (name_extracted is only
		// wanted when name is: hints hold the base of every _extracted).
		return true
	}
	var name string
	if len(p.prefix) == 0 {
		name = sanitizeLabelKey(string(key))
		if name == "" {
			return true
		}
		if p.s.baseOrMetadataHas(name) {
			name += "_extracted"
		}
	} else {
		parts := append(append([][]byte(nil), p.prefix...), key)
		name = joinSanitized(parts)
		if p.s.baseOrMetadataHas(name) {
			parts[len(parts)-1] = append(append([]byte(nil), key...), "_extracted"...)
			name = joinSanitized(parts)
		}
	}
	if p.s.wants(name) {
		if !p.s.extract(name, readJSONValue(value, t)) {
			return false
		}
		if p.paths != nil {
			if _, seen := p.paths[name]; !seen {
				path := make([]string, 0, len(p.prefix)+1)
				for _, k := range p.prefix {
					path = append(path, string(k))
				}
				p.paths[name] = append(path, string(key))
			}
		}
	}
	return true
}

// sanitizeLabelKey is Loki's: trim, a leading digit gets "_", every rune
// outside [A-Za-z0-9_] becomes "_".
func sanitizeLabelKey(key string) string {
	key = strings.TrimSpace(key)
	if key == "" {
		return key
	}
	if key[0] >= '0' && key[0] <= '9' {
		key = "_" + key
	}
	return strings.Map(sanitizeRune, key)
}

func sanitizeRune(r rune) rune {
	if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r >= '0' && r <= '9' {
		return r
	}
	return '_'
}

// joinSanitized joins nested keys as Loki's buildSanitizedPrefixFromBuffer.
func joinSanitized(parts [][]byte) string {
	var b []byte
	for i, part := range parts {
		part = bytes.TrimSpace(part)
		if len(part) == 0 {
			continue
		}
		if i > 0 && len(b) > 0 {
			b = append(b, '_')
		}
		if len(b) == 0 && part[0] >= '0' && part[0] <= '9' {
			b = append(b, '_')
		}
		for _, r := range string(part) {
			b = utf8.AppendRune(b, sanitizeRune(r))
		}
	}
	return string(b)
}

func readJSONValue(v []byte, t jsonparser.ValueType) string {
	switch t {
	case jsonparser.String:
		return unescapeJSONString(v)
	case jsonparser.Number:
		return string(v)
	case jsonparser.Boolean:
		if string(v) == "true" {
			return "true"
		}
		return "false"
	}
	return ""
}

// unescapeJSONString unescapes like Loki: "" when the escapes are invalid,
// and a space for each U+FFFD or invalid UTF-8 byte (Loki v3.7.8 writes a
// space: Prometheus refuses the replacement character).
func unescapeJSONString(b []byte) string {
	u, err := jsonparser.Unescape(b, nil)
	if err != nil {
		return ""
	}
	s := string(u)
	if strings.ContainsRune(s, utf8.RuneError) {
		s = strings.Map(spaceForRuneError, s)
	}
	return s
}

// spaceForRuneError is Loki's parsers' mapping of U+FFFD (and of what
// does not decode) to a space.
func spaceForRuneError(r rune) rune {
	if r == utf8.RuneError {
		return ' '
	}
	return r
}

// plainLabelName reports a key sanitizeLabelKey leaves as it is.
func plainLabelName(key []byte) bool {
	if len(key) == 0 || key[0] >= '0' && key[0] <= '9' {
		return false
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
