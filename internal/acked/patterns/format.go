package patterns

import "regexp"

// Line formats Loki guesses from a stream's first pushed line; each has
// its tokenizer.
const (
	formatJSON    = "json"
	formatLogfmt  = "logfmt"
	formatUnknown = "unknown"
)

// logfmtLine is a line made only of key=value pairs separated by single
// spaces, values bare or double-quoted (Loki's guess, not its parser).
var logfmtLine = regexp.MustCompile(`^(\w+=([^"]\S*|".+") )*(\w+=([^"]\S*|".+"))+$`)

func detectFormat(line string) string {
	switch {
	case len(line) < 2:
		return formatUnknown
	case line[0] == '{' && line[len(line)-1] == '}':
		return formatJSON
	case logfmtLine.MatchString(line):
		return formatLogfmt
	}
	return formatUnknown
}

func tokenizerFor(format string, maxLineLength int) tokenizer {
	switch format {
	case formatJSON:
		return jsonMessage{punctuation{maxLineLength}, defaultJSONFields}
	case formatLogfmt:
		return logfmtTokens{maxLineLength}
	}
	return punctuation{maxLineLength}
}
