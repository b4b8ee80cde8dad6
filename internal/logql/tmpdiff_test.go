package logql

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestTmpDiff(t *testing.T) {
	f, _ := os.Open("testdata/corpus.jsonl")
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c struct {
			corpusCase
			FormatStatus int    `json:"format_status"`
			FormatBody   string `json:"format_body"`
		}
		json.Unmarshal(sc.Bytes(), &c)
		if !strings.Contains(c.Query, os.Getenv("Q")) {
			continue
		}
		e, err := ParseExpr(c.Query)
		if c.RangeStatus != 200 && (err == nil || err.Error() != c.RangeError) {
			t.Logf("%q\n   loki: %s\n  vloki: %v", c.Query, c.RangeError, err)
		}
		if c.RangeStatus == 200 && err != nil {
			t.Logf("%q\n   loki: OK\n  vloki: %v", c.Query, err)
		}
		if c.FormatStatus == 200 && err == nil && os.Getenv("F") != "" {
			var b struct{ Data string }
			json.Unmarshal([]byte(c.FormatBody), &b)
			if b.Data != e.String() {
				t.Logf("format %q\n   loki: %s\n  vloki: %s", c.Query, b.Data, e.String())
			}
		}
	}
}
