package frontend

import (
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logs"
)

func streamAt(labels string, ts ...int64) lokidata.Stream {
	s := lokidata.Stream{Labels: lokidata.Labels{{Name: "app", Value: labels}}}
	for _, t := range ts {
		s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: t, Line: "x"})
	}
	return s
}

// An answer under its limit covers its whole range; one at its limit only
// what is newer than its oldest entry (entries sharing it may be missing).
func TestSpanOfAnswer(t *testing.T) {
	res := &logs.Result{Streams: []lokidata.Stream{streamAt("a", 90, 50), streamAt("b", 70)}}
	s := spanOf(res, logs.Request{Start: 10, End: 100, Limit: 5})
	if s.lo != 10 || s.hi != 100 || len(s.entries) != 3 {
		t.Fatalf("under the limit: [%d, %d) with %d entries", s.lo, s.hi, len(s.entries))
	}
	s = spanOf(res, logs.Request{Start: 10, End: 100, Limit: 3})
	if s.lo != 51 || len(s.entries) != 2 || s.entries[0].e.TimestampNs != 90 || s.entries[1].e.TimestampNs != 70 {
		t.Fatalf("at the limit: [%d, %d) with %v", s.lo, s.hi, s.entries)
	}
	tied := &logs.Result{Streams: []lokidata.Stream{streamAt("a", 90, 90)}}
	if spanOf(tied, logs.Request{Start: 10, End: 100, Limit: 5}) != nil {
		t.Fatal("a stream with two entries at one timestamp was kept")
	}
}

func TestSpanCutKeepsItsInterval(t *testing.T) {
	res := &logs.Result{Streams: []lokidata.Stream{streamAt("a", 90, 50, 20)}}
	s := spanOf(res, logs.Request{Start: 10, End: 100, Limit: 10})
	c := s.cut(30, 90)
	if c.lo != 30 || c.hi != 90 || len(c.entries) != 1 || c.entries[0].e.TimestampNs != 50 {
		t.Fatalf("cut [30, 90): [%d, %d) %v", c.lo, c.hi, c.entries)
	}
	if s.cut(100, 200) != nil {
		t.Fatal("a cut outside the span is not empty")
	}
}
