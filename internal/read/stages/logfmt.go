package stages

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/vloki/vloki/internal/lang/logfmt"
)

// parseLogfmt is Loki's non-strict logfmt parser: key=value pairs, quoted
// values with JSON escapes, keys without values and empty values skipped,
// malformed pairs skipped without an error, names sanitised, "_extracted"
// on collisions with stream labels or structured metadata, first key wins.
func parseLogfmt(s *Entry) { parseLogfmtWith(s, false, false) }

// parseLogfmtWith adds the flags: --strict stops at the first malformed
// pair and reports it as LogfmtParserErr; --keep-empty keeps empty values.
func parseLogfmtWith(s *Entry, strict, keepEmpty bool) {
	sc := logfmt.NewScanner([]byte(s.Line))
	if !scanLogfmt(s, sc, strict, keepEmpty) {
		return
	}
	if strict && sc.Err() != "" {
		s.parserError(logfmtParserErr, sc.Err())
		s.keepParsing(ErrorLabel)
	}
}

// scanLogfmt extracts the pairs; false when an early filter dropped the
// entry.
func scanLogfmt(s *Entry, sc *logfmt.Scanner, strict, keepEmpty bool) bool {
	for !sc.EOL() {
		key, value, ok := sc.Next()
		if !ok {
			if strict {
				return true
			}
			continue
		}
		name := sanitizeLabelKey(string(key))
		if name == "" {
			continue
		}
		if s.baseOrMetadataHas(name) {
			name += "_extracted"
		}
		if s.wasExtracted(name) || !s.wants(name) || len(value) == 0 && !keepEmpty {
			continue
		}
		if !s.extract(name, spacedRuneErrors(value)) {
			return false
		}
		if s.allWantedExtracted() {
			return true
		}
	}
	return true
}

// spacedRuneErrors is b with a space for each U+FFFD or invalid UTF-8
// byte, as Loki's logfmt parser writes it.
func spacedRuneErrors(b []byte) string {
	if !bytes.ContainsRune(b, utf8.RuneError) {
		return string(b)
	}
	return strings.Map(spaceForRuneError, string(b))
}

func validUTF8(b []byte) bool { return !bytes.ContainsRune(b, utf8.RuneError) }
