package querier

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/stages"
)

// The memo answers as DetectFields does, for JSON and logfmt lines and
// for streams whose labels change the fields' names, and parses each
// line of a stream once.
func TestDetectMemoAnswersAsParsing(t *testing.T) {
	m := newDetectMemo()
	streams := []lokidata.Labels{{{Name: "app", Value: "a"}}, {{Name: "app", Value: "a"}, {Name: "status", Value: "x"}}}
	lines := []string{`{"status":200,"req":{"path":"/x"}}`, `level=info status=500 msg="a b"`, `not parsed`}
	for round := range 2 {
		for _, st := range streams {
			for _, line := range lines {
				got := m.parse(st.String(), st, line)
				if want := stages.DetectFields(st, line); !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d, %v %q: %+v, want %+v", round, st, line, got, want)
				}
			}
		}
	}
	if m.misses != 6 || m.hits != 6 {
		t.Fatalf("%d misses, %d hits; want 6 each", m.misses, m.hits)
	}
}

// However many lines pass, the memo holds at most its bound.
func TestDetectMemoBounded(t *testing.T) {
	m := newDetectMemo()
	st := lokidata.Labels{{Name: "app", Value: "a"}}
	for i := range 200_000 {
		m.parse(st.String(), st, `{"n":`+strconv.Itoa(i)+`,"pad":"`+string(make([]byte, 100))+`"}`)
	}
	var held int64
	for _, gen := range []map[uint64]memoParse{m.cur, m.old} {
		for _, e := range gen {
			held += e.bytes
		}
	}
	if held > detectMemoBytes || len(m.old) == 0 {
		t.Fatalf("held %d bytes (bound %d), older generation %d entries", held, detectMemoBytes, len(m.old))
	}
}

// fieldType's shortcut for values no parser accepts changes no type.
func TestFieldTypeShortcut(t *testing.T) {
	values := []string{"", "200", "-3", "+4", "1.5", ".5", "1e3", "inf", "-Inf", "NaN", "nan", "Infinity", "0x1p-2",
		"true", "TRUE", "True", "t", "F", "false", "fa", "1s", "-1.5h", ".5ms", "10 MB", "1,024", "5GiB", "42b",
		"abc", "/api/v1", "GET", "info", "error", "x1", "é", "١٢٣", " 1", "null", "yes", "12abc", "1_000"}
	for _, v := range values {
		if got, want := fieldType(v), parsedType(v); got != want {
			t.Errorf("%q: %s, want %s", v, got, want)
		}
	}
}
