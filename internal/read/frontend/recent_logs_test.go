package frontend

import (
	"context"
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
	s := answerSpan(res, logs.Request{Start: 10, End: 100, Limit: 5}, false)
	if s.lo != 10 || s.hi != 100 || len(s.all()) != 3 {
		t.Fatalf("under the limit: [%d, %d) with %d entries", s.lo, s.hi, len(s.all()))
	}
	s = answerSpan(res, logs.Request{Start: 10, End: 100, Limit: 3}, false)
	if s.lo != 51 || len(s.all()) != 2 || s.all()[0].e.TimestampNs != 90 || s.all()[1].e.TimestampNs != 70 {
		t.Fatalf("at the limit, a tie cut: [%d, %d) with %v", s.lo, s.hi, s.all())
	}
	s = answerSpan(res, logs.Request{Start: 10, End: 100, Limit: 3}, true)
	if s.lo != 50 || len(s.all()) != 3 {
		t.Fatalf("at the limit, no tie cut: [%d, %d) with %v", s.lo, s.hi, s.all())
	}
	tied := &logs.Result{Streams: []lokidata.Stream{streamAt("a", 90, 90)}}
	if s, _ := spanOf(context.Background(), logAnswer{res: tied}, logs.Request{Start: 10, End: 100, Limit: 5}); s != nil {
		t.Fatal("a merged answer was kept")
	}
}

func TestSpanCutKeepsItsInterval(t *testing.T) {
	res := &logs.Result{Streams: []lokidata.Stream{streamAt("a", 90, 50, 20)}}
	s := answerSpan(res, logs.Request{Start: 10, End: 100, Limit: 10}, true)
	c := s.cut(30, 90)
	if c.lo != 30 || c.hi != 90 || len(c.all()) != 1 || c.all()[0].e.TimestampNs != 50 {
		t.Fatalf("cut [30, 90): [%d, %d) %v", c.lo, c.hi, c.all())
	}
	if s.cut(100, 200) != nil {
		t.Fatal("a cut outside the span is not empty")
	}
}
