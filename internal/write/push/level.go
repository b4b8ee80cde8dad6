package push

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-logfmt/logfmt"
	"github.com/grafana/jsonparser"

	"github.com/vloki/vloki/internal/edge/limits"
	"github.com/vloki/vloki/internal/lokidata"
)

// DetectedLevelLabel is the structured metadata Loki adds at ingestion.
const DetectedLevelLabel = "detected_level"

// Loki's level names (pkg/util/constants/levels.go).
const (
	levelTrace    = "trace"
	levelDebug    = "debug"
	levelInfo     = "info"
	levelWarn     = "warn"
	levelError    = "error"
	levelCritical = "critical"
	levelFatal    = "fatal"
	levelUnknown  = "unknown"
)

// addDetectedLevel follows Loki's distributor: an existing detected_level
// is normalised; otherwise the level comes from a level-like stream label,
// then structured metadata, then the line itself.
func addDetectedLevel(ls lokidata.Labels, e *lokidata.Entry, l limits.Limits) {
	for i, m := range e.StructuredMetadata {
		if m.Name == DetectedLevelLabel {
			e.StructuredMetadata[i].Value = normalizeLevel(m.Value)
			return
		}
	}
	if level := DetectLevel(ls, e.StructuredMetadata, e.Line, l); level != "" {
		e.StructuredMetadata = append(e.StructuredMetadata, lokidata.Label{Name: DetectedLevelLabel, Value: level})
	}
}

// DetectLevel is the level Loki's distributor derives for an entry
// without detected_level, "" when it derives none.
func DetectLevel(stream, metadata lokidata.Labels, line string, l limits.Limits) string {
	if v, ok := firstOf(stream, l.LogLevelFields); ok {
		return normalizeLevel(v)
	}
	if v, ok := firstOf(metadata, l.LogLevelFields); ok {
		return normalizeLevel(v)
	}
	if v, ok := metadata.Get("severity_number"); ok && v != "" {
		return levelFromSeverityNumber(v)
	}
	return levelFromLine(line, l)
}

// levelFromSeverityNumber maps an OpenTelemetry severity number (1–4
// trace, 5–8 debug, 9–12 info, 13–16 warn, 17–20 error, 21–24 fatal) as
// Loki does; a value that is not a number reads as info.
func levelFromSeverityNumber(v string) string {
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return levelInfo
	case n == 0:
		return levelUnknown
	case n <= 4:
		return levelTrace
	case n <= 8:
		return levelDebug
	case n <= 12:
		return levelInfo
	case n <= 16:
		return levelWarn
	case n <= 20:
		return levelError
	case n <= 24:
		return levelFatal
	}
	return levelUnknown
}

func firstOf(ls lokidata.Labels, names []string) (string, bool) {
	for _, n := range names {
		if v, ok := ls.Get(n); ok {
			return v, true
		}
	}
	return "", false
}

// knownLevel maps Loki's accepted spellings, case-insensitively.
func knownLevel(v string) (string, bool) {
	switch strings.ToLower(v) {
	case "trace", "trc":
		return levelTrace, true
	case "debug", "dbg":
		return levelDebug, true
	case "info", "inf", "information":
		return levelInfo, true
	case "warn", "wrn", "warning":
		return levelWarn, true
	case "error", "err":
		return levelError, true
	case "critical":
		return levelCritical, true
	case "fatal":
		return levelFatal, true
	}
	return "", false
}

func normalizeLevel(v string) string {
	if l, ok := knownLevel(v); ok {
		return l
	}
	return v
}

func levelFromLine(line string, l limits.Limits) string {
	var v []byte
	switch {
	case isJSON(line):
		v = levelFromJSON([]byte(line), l.LogLevelFields, l.LogLevelFromJSONMaxDepth)
	case strings.Contains(line, "="):
		v = levelFromLogfmt([]byte(line), l.LogLevelFields)
	default:
		return levelFromText(line)
	}
	if lv, ok := knownLevel(string(v)); ok {
		return lv
	}
	return levelFromText(line)
}

var errFound = errors.New("found")

// levelFromJSON returns the first string value, in document order, of an
// allowed level key within maxDepth levels of nesting.
func levelFromJSON(line []byte, fields []string, maxDepth int) []byte {
	allowed := make(map[string]bool, len(fields))
	for _, f := range fields {
		allowed[f] = true
	}
	var result []byte
	var walk func(data []byte, depth int) error
	walk = func(data []byte, depth int) error {
		if maxDepth > 0 && depth >= maxDepth {
			return nil
		}
		return jsonparser.ObjectEach(data, func(k, v []byte, t jsonparser.ValueType, _ int) error {
			switch t {
			case jsonparser.String:
				if allowed[string(k)] {
					result = v
					return errFound
				}
			case jsonparser.Object:
				return walk(v, depth+1)
			}
			return nil
		})
	}
	_ = walk(line, 0)
	return result
}

// levelFromLogfmt returns the value of the earliest-listed allowed key,
// matched case-insensitively.
func levelFromLogfmt(line []byte, fields []string) []byte {
	d := logfmt.NewDecoder(bytes.NewReader(line))
	pos := len(fields)
	var res []byte
	for d.ScanRecord() {
		for d.ScanKeyval() {
			k := string(d.Key())
			for x, f := range fields {
				if x < pos && strings.EqualFold(k, f) {
					res, pos = append([]byte(nil), d.Value()...), x
					if x == 0 {
						return res
					}
				}
			}
		}
	}
	return res
}

func isJSON(line string) bool {
	first, last := rune(0), rune(0)
	for _, c := range line {
		if !unicode.IsSpace(c) {
			first = c
			break
		}
	}
	for i := len(line) - 1; i >= 0; i-- {
		if c := rune(line[i]); !unicode.IsSpace(c) {
			last = c
			break
		}
	}
	return first == '{' && last == '}'
}

var levelWords = []struct{ word, level string }{
	{"trace", levelTrace}, {"debug", levelDebug}, {"fatal", levelFatal}, {"critical", levelCritical},
	{"error", levelError}, {"err", levelError}, {"warning", levelWarn}, {"warn", levelWarn}, {"info", levelInfo},
}

// levelFromText finds the earliest level word standing on word boundaries.
func levelFromText(line string) string {
	lower := strings.ToLower(line)
	idx, guess := len(lower), levelUnknown
	for _, w := range levelWords {
		pos := indexBounded(lower, w.word)
		if pos == -1 || pos >= idx {
			continue
		}
		idx, guess = pos, w.level
		if idx == 0 {
			break
		}
	}
	return guess
}

func indexBounded(s, word string) int {
	for off := 0; ; {
		p := strings.Index(s[off:], word)
		if p == -1 {
			return -1
		}
		abs := off + p
		if leftBoundary(s, abs-1) && rightBoundary(s, abs+len(word)) {
			return abs
		}
		off = abs + 1
	}
}

func leftBoundary(s string, i int) bool {
	return i < 0 || i >= len(s) || strings.IndexByte(" \t\n[({\"=", s[i]) >= 0
}

func rightBoundary(s string, i int) bool {
	return i < 0 || i >= len(s) || strings.IndexByte(" \t\n[]{}():,!\"=", s[i]) >= 0
}
