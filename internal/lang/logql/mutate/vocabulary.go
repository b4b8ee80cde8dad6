package mutate

import (
	"sync"

	"github.com/vloki/vloki/internal/lang/logql"
)

// Vocabulary is every token LogQL knows, spelled once each: keywords,
// stage and function names (every aggregation from logql's registry),
// operators and delimiters, and a literal of every kind.
var Vocabulary = sync.OnceValue(func() []string {
	words := []string{
		"or", "and", "unless", "by", "without", "bool", "offset", "on", "ignoring", "group_left",
		"group_right", "json", "regexp", "logfmt", "unpack", "pattern", "label_format", "line_format",
		"decolorize", "drop", "keep", "variants", "of", "unwrap", "ip", "vector", "label_replace",
		"bytes", "duration", "duration_seconds",
	}
	for _, op := range logql.RangeOps() {
		words = append(words, op.String())
	}
	for _, op := range logql.VectorOps() {
		words = append(words, op.String())
	}
	punct := []string{
		"{", "}", "(", ")", "[", "]", ",", ".", "=", "!=", "=~", "!~", "|=", "|~", "|>", "!>", "|",
		"+", "-", "*", "/", "%", "^", "==", ">", ">=", "<", "<=",
	}
	literals := []string{
		"1", "0.5", "-1", "5m", "1h", "10KB", `"x"`, "`x`", `"5m"`, "app", "foo", "[5m]", "[5m:1m]",
		"--strict", "--keep-empty",
	}
	return append(append(words, punct...), literals...)
})
