package logql

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
)

// malformedCase is one mutant of testdata/malformed.jsonl.gz with Loki's
// answers (parity/cmd/record-malformed says how both were made).
type malformedCase struct {
	Query         string `json:"q"`
	Kind          string `json:"k"`
	Status        int    `json:"s"`
	Error         string `json:"e"`
	InstantStatus int    `json:"is"`
	InstantError  string `json:"ie"`
	FormatStatus  int    `json:"fs"`
	Format        string `json:"f"`
	Flaky         bool   `json:"flaky"`
}

// malformedExceptions are the mutants vloki cannot answer as Loki did,
// each with the reason; none so far.
var malformedExceptions = map[string]string{}

// TestLokiMalformed holds the parser to Loki's query_range answers on
// queries derived from valid ones by token mutations (internal/lang/logql/
// mutate): the same decision and, for a query Loki rejects, the same
// message, judged as TestLokiCorpus judges.
func TestLokiMalformed(t *testing.T) {
	cases := loadMalformed(t)
	counts := map[verdict]int{}
	differ := map[string]int{}
	for _, c := range cases {
		if skipMalformed(t, c) {
			continue
		}
		v, detail := judge(c.Query, c.Status, c.Error)
		counts[v]++
		if v.wrong() {
			differ[c.Kind]++
			t.Errorf("%s %q: %s: %s", c.Kind, c.Query, v, detail)
		}
	}
	t.Logf("%d mutants: %d run by Loki and parsed, %d rejected with Loki's message, %d parsed and refused for their length; differing by mutation: %v",
		len(cases), counts[accepted], counts[sameMessage], counts[afterParsing], differ)
}

// TestLokiMalformedFormat holds ParseForFormat and Pretty to Loki's
// format_query answers on the same mutants: its output, or its error.
func TestLokiMalformedFormat(t *testing.T) {
	same := 0
	cases := loadMalformed(t)
	for _, c := range cases {
		if skipMalformed(t, c) {
			continue
		}
		status, want := c.Status, c.Error
		if c.FormatStatus != 0 {
			status, want = c.FormatStatus, c.Format
		}
		got := ""
		e, err := ParseForFormat(c.Query)
		switch {
		case err != nil && status == 200:
			t.Errorf("Loki formats %q; vloki: %v", c.Query, err)
			continue
		case err != nil:
			got = err.Error()
		case status != 200:
			t.Errorf("Loki refuses to format %q (%s); vloki formats it", c.Query, want)
			continue
		default:
			got = Pretty(e)
		}
		if got != want {
			t.Errorf("format_query %q:\n loki  %q\n vloki %q", c.Query, want, got)
			continue
		}
		same++
	}
	t.Logf("format_query: %d of %d mutants answered as Loki does", same, len(cases))
}

// TestLokiMalformedInstant checks the one way Loki's instant answers to
// the mutants differ from its range answers: it refuses a log query (one
// read as such, stages unbuilt, as vloki's decoder reads it) with
// msgLogOnInstant, which vloki's engine gives too.
func TestLokiMalformedInstant(t *testing.T) {
	const msgLogOnInstant = "log queries are not supported as an instant query type, please change your query to a range query type"
	for _, c := range loadMalformed(t) {
		if skipMalformed(t, c) {
			continue
		}
		e, err := ParseForFormat(c.Query)
		_, logQuery := e.(LogSelectorExpr)
		logQuery = logQuery && err == nil
		switch {
		case c.InstantStatus == 0 && logQuery && c.Status == 200:
			t.Errorf("Loki runs log query %q as an instant query", c.Query)
		case c.InstantStatus != 0 && (!logQuery || c.InstantStatus != 400 || c.InstantError != msgLogOnInstant):
			t.Errorf("instant %q: Loki answers %d %s, not its range answer", c.Query, c.InstantStatus, c.InstantError)
		}
	}
}

// skipMalformed reports the mutants not compared: those Loki answered
// differently when asked twice, and the listed exceptions.
func skipMalformed(t *testing.T, c malformedCase) bool {
	if c.Flaky {
		t.Logf("Loki answered %q differently on two passes", c.Query)
		return true
	}
	if why, ok := malformedExceptions[c.Query]; ok {
		t.Logf("not compared: %q: %s", c.Query, why)
		return true
	}
	return false
}

func loadMalformed(t *testing.T) []malformedCase {
	return readJSONL[malformedCase](t, "testdata/malformed.jsonl.gz")
}

// readJSONL reads one recorded case per line (gunzipped when path ends
// in .gz).
func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c T
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
