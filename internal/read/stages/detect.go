package stages

import (
	"errors"

	"github.com/grafana/jsonparser"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
)

// DetectedParse is what Loki's detected_fields reads from one line.
type DetectedParse struct {
	Fields lokidata.Labels
	// Paths are the JSON paths of the fields, when the line was JSON.
	Paths map[string][]string
	// Parser is "json" or "logfmt".
	Parser string
}

// DetectFields parses a line as Loki's detected_fields does: as JSON, its
// nested keys flattened, and when that fails as logfmt. The stream labels
// decide the _extracted suffixes.
func DetectFields(stream lokidata.Labels, line string) DetectedParse {
	row := logrow.Row{Labels: stream, Line: line}
	st := Entry{Row: &row, Line: line}
	p := &jsonParse{s: &st, paths: map[string][]string{}}
	err := jsonparser.ObjectEach([]byte(line), p.visit)
	if err == nil || errors.Is(err, errAllExtracted) {
		return DetectedParse{Fields: st.parsed, Paths: p.paths, Parser: "json"}
	}
	st = Entry{Row: &row, Line: line}
	parseLogfmt(&st)
	return DetectedParse{Fields: st.parsed, Parser: "logfmt"}
}
