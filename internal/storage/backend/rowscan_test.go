package backend

import (
	"bytes"
	"testing"

	"github.com/valyala/fastjson"
)

// sameAsFastjson checks that when scanRow accepts a line, it reads the
// same fields as the general parser.
func sameAsFastjson(t *testing.T, line []byte) bool {
	t.Helper()
	var scanned Row
	_, ok := scanRow(line, &scanned, nil)
	if !ok {
		return false
	}
	var p fastjson.Parser
	var parsed Row
	if err := decodeRow(&p, line, &parsed); err != nil {
		t.Fatalf("scanRow accepted %q, fastjson refuses it: %v", line, err)
	}
	if len(scanned.Fields) != len(parsed.Fields) {
		t.Fatalf("%q: %d fields scanned, %d parsed", line, len(scanned.Fields), len(parsed.Fields))
	}
	for i := range scanned.Fields {
		s, p := scanned.Fields[i], parsed.Fields[i]
		if !bytes.Equal(s.Name, p.Name) || !bytes.Equal(s.Value, p.Value) {
			t.Fatalf("%q field %d: scanned %q=%q, parsed %q=%q", line, i, s.Name, s.Value, p.Name, p.Value)
		}
	}
	return true
}

func TestScanRow(t *testing.T) {
	accepted := []string{
		`{}`,
		`{"_time":"2025-01-15T00:00:00Z","_stream":"{app=\"a\"}","_msg":"x"}`,
		`{"_msg":"tab\tnl\nquote\"back\\slash\/ \u00e9 \u65e5 \u0000 \b\f\r"}`,
		` { "a" : "1" , "a" : "2" } `,
		`{"ünï":"cödé ✓"}`,
		"{\"raw\":\"\xff\xfe invalid utf8\"}",
	}
	for _, l := range accepted {
		if !sameAsFastjson(t, []byte(l)) {
			t.Errorf("scanRow refused %q", l)
		}
	}
	refused := []string{
		``, `[]`, `{"a":1}`, `{"a":null}`, `{"a":"b"`, `{"a":"b",}`, `{"a" "b"}`, `{"a":"\x"}`,
		`{"a":"\ud83d\ude00"}`, `{"a":"\u12"}`, "{\"a\":\"new\nline\"}", `{"a":"b"} x`,
	}
	for _, l := range refused {
		if sameAsFastjson(t, []byte(l)) {
			t.Errorf("scanRow accepted %q", l)
		}
	}
}

func FuzzScanRow(f *testing.F) {
	f.Add(`{"_time":"2025-01-15T00:00:00Z","_msg":"a\"b\\c\u00e9"}`)
	f.Add(`{"a":"\ud83d\ude00","b":""}`)
	f.Fuzz(func(t *testing.T, line string) {
		sameAsFastjson(t, []byte(line))
	})
}
