package logql

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
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
	var total, accepted, unsupported, rejectedSame, rejectedDiffer, wronglyRejected, wronglyAccepted int
	for _, c := range loadCorpus(t) {
		total++
		e, err := ParseExpr(c.Query)
		if err == nil {
			// Queries Loki parses but refuses to run count as rejected.
			err = Refusal(e)
		}
		var ue *UnsupportedError
		switch {
		case c.RangeStatus == 200 && err == nil:
			accepted++
		case c.RangeStatus == 200 && errors.As(err, &ue):
			unsupported++
		case c.RangeStatus == 200:
			wronglyRejected++
			t.Logf("Loki accepts %q; vloki: %v", c.Query, err)
		case err == nil:
			wronglyAccepted++
			t.Logf("Loki rejects %q (%s); vloki accepts", c.Query, c.RangeError)
		case errors.As(err, &ue):
			rejectedDiffer++
		case err.Error() == c.RangeError:
			rejectedSame++
		default:
			rejectedDiffer++
		}
	}
	t.Logf("corpus: %d queries; Loki-valid: %d parsed, %d not supported yet, %d wrongly rejected; Loki-invalid: %d same message, %d other message, %d wrongly accepted",
		total, accepted, unsupported, wronglyRejected, rejectedSame, rejectedDiffer, wronglyAccepted)
	if wronglyRejected > 0 {
		t.Errorf("%d queries Loki accepts are rejected", wronglyRejected)
	}
	if wronglyAccepted > 0 {
		t.Errorf("%d queries Loki rejects are accepted", wronglyAccepted)
	}
	if rejectedDiffer > 0 {
		t.Errorf("%d rejections differ from Loki's message", rejectedDiffer)
	}
	if unsupported > 0 {
		t.Errorf("%d queries Loki accepts are not supported", unsupported)
	}
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
	f, err := os.Open("testdata/corpus.jsonl")
	if os.IsNotExist(err) {
		t.Skip("no corpus recorded")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
