package logql

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// malformedCase is one mutant of testdata/malformed.jsonl with Loki's
// answers (parity/cmd/record-malformed says how it was made and recorded).
type malformedCase struct {
	Query  string `json:"q"`
	Kind   string `json:"k"`
	Status int    `json:"s"`
	Error  string `json:"e"`
	Flaky  bool   `json:"flaky"`
}

// TestLokiMalformed holds the parser to Loki's answers on queries derived
// from valid ones by token mutations: the same decision and, for a query
// Loki rejects, the same message, as TestLokiCorpus judges.
func TestLokiMalformed(t *testing.T) {
	cases := loadMalformed(t)
	differ := map[string]int{}
	n := 0
	for _, c := range cases {
		if c.Flaky {
			continue
		}
		if msg := judge(c.Query, c.Status, c.Error); msg != "" {
			n++
			differ[c.Kind]++
			t.Errorf("%s %q: %s", c.Kind, c.Query, msg)
		}
	}
	t.Logf("malformed: %d mutants, %d differ from Loki %v", len(cases), n, differ)
}

// judge compares vloki's parser with Loki's query_range answer: status
// 200 means Loki ran the query, otherwise errText is its message. It
// returns "" when they agree.
func judge(query string, status int, errText string) string {
	e, err := ParseExpr(query)
	if err == nil {
		// Queries Loki parses but refuses to run count as rejected.
		err = Refusal(e)
	}
	var ue *UnsupportedError
	switch {
	case status == 200 && err == nil:
		return ""
	case status == 200:
		return "Loki runs it; vloki: " + err.Error()
	case err == nil:
		return "vloki accepts it; Loki: " + errText
	case errors.As(err, &ue):
		return "vloki does not support it; Loki: " + errText
	case err.Error() != errText:
		return "\n loki  " + errText + "\n vloki " + err.Error()
	}
	return ""
}

func loadMalformed(t *testing.T) []malformedCase {
	f, err := os.Open("testdata/malformed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []malformedCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c malformedCase
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
