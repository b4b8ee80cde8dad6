package logql

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// corpusCase is one query with the answer real Loki v3.7.8 gave on
// query_range (testdata/README.md says how it was recorded).
type corpusCase struct {
	Query        string `json:"query"`
	RangeStatus  int    `json:"range_status"`
	RangeError   string `json:"range_error"`
	FormatStatus int    `json:"format_status"`
	FormatBody   string `json:"format_body"`
}

// TestLokiCorpus checks the parser against Loki's own decisions: a query
// Loki rejects must be rejected with Loki's exact message (at parse time,
// or at evaluation for the queries Loki parses but refuses to run); a
// query Loki accepts must parse.
func TestLokiCorpus(t *testing.T) {
	counts := map[verdict]int{}
	total := 0
	for _, c := range loadCorpus(t) {
		total++
		v, detail := judge(c.Query, c.RangeStatus, c.RangeError)
		counts[v]++
		if v.wrong() {
			t.Logf("%s %q: %s", v, c.Query, detail)
		}
	}
	t.Logf("corpus: %d queries; Loki-valid: %d parsed, %d not supported yet, %d wrongly rejected; Loki-invalid: %d same message, %d other message, %d wrongly accepted",
		total, counts[accepted], counts[unsupported], counts[wronglyRejected], counts[sameMessage], counts[otherMessage], counts[wronglyAccepted])
	for _, v := range []verdict{wronglyRejected, wronglyAccepted, otherMessage, unsupported} {
		if counts[v] > 0 {
			t.Errorf("%d queries: %s", counts[v], v)
		}
	}
}

// verdict is how vloki's parser answers a query compared with Loki.
type verdict string

const (
	accepted        verdict = "parsed, as Loki runs it"
	sameMessage     verdict = "rejected with Loki's message"
	afterParsing    verdict = "parsed; Loki refuses it after parsing, for its length"
	unsupported     verdict = "Loki runs it; vloki does not support it"
	wronglyRejected verdict = "Loki runs it; vloki rejects it"
	wronglyAccepted verdict = "Loki rejects it; vloki accepts it"
	otherMessage    verdict = "rejected with another message than Loki's"
)

func (v verdict) wrong() bool {
	return v != accepted && v != sameMessage && v != afterParsing
}

// errQueryLength starts Loki's refusal of a range longer than its limit,
// which counts the query's longest lookback: vloki's engine checks it,
// after parsing (internal/read/engine).
const errQueryLength = "the query time range exceeds the limit"

// judge compares vloki's parser (ParseExpr, then Refusal: the queries
// Loki parses but refuses to run count as rejected) with Loki's
// query_range answer: status 200 means Loki ran the query, otherwise
// errText is its message. detail says what differs.
func judge(query string, status int, errText string) (verdict, string) {
	e, err := ParseExpr(query)
	if err == nil {
		err = Refusal(e)
	}
	var ue *UnsupportedError
	switch {
	case status == 200 && err == nil:
		return accepted, ""
	case status == 200 && errors.As(err, &ue):
		return unsupported, err.Error()
	case status == 200:
		return wronglyRejected, err.Error()
	case err == nil && strings.HasPrefix(errText, errQueryLength):
		return afterParsing, ""
	case err == nil:
		return wronglyAccepted, errText
	case errors.As(err, &ue):
		return otherMessage, err.Error()
	case err.Error() != errText:
		return otherMessage, "\n loki  " + errText + "\n vloki " + err.Error()
	}
	return sameMessage, ""
}

// TestLokiCorpusFormat checks format_query's output against Loki's for
// every query Loki formats.
func TestLokiCorpusFormat(t *testing.T) {
	var total, same int
	for _, c := range loadCorpus(t) {
		var body struct{ Data string }
		if c.FormatStatus != 200 || json.Unmarshal([]byte(c.FormatBody), &body) != nil {
			continue
		}
		total++
		e, err := ParseForFormat(c.Query)
		switch {
		case err != nil:
			t.Errorf("Loki formats %q; vloki: %v", c.Query, err)
		case Pretty(e) == body.Data:
			same++
		default:
			t.Logf("format %q:\n loki  %q\n vloki %q", c.Query, body.Data, Pretty(e))
		}
	}
	t.Logf("format_query: %d of %d formatted as Loki does", same, total)
	if same < total {
		t.Errorf("only %d formatted as Loki does", same)
	}
}

// loadCorpus reads the recorded corpus; the tests skip without one.
func loadCorpus(t *testing.T) []corpusCase {
	return readJSONL[corpusCase](t, "testdata/corpus.jsonl")
}
