package frontend

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
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

// TestSpanWeighsTheHeapItHolds: a kept span's size is the heap its entries
// hold, within 10% under and 2× over, both for an answer whose parsed
// labels make each entry a stream (a `| json` select) and for streams of
// many entries.
func TestSpanWeighsTheHeapItHolds(t *testing.T) {
	for _, perStream := range []int{1, 500} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		streams := parsedStreams(20000, perStream)
		span := newSpan(0, 1<<62, flatten(streams))
		streams = nil
		runtime.GC()
		runtime.ReadMemStats(&after)
		held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		if est := span.size(); est < held*9/10 || est > 2*held {
			t.Errorf("%d entries a stream: weighed %d bytes, the heap holds %d", perStream, est, held)
		}
		runtime.KeepAlive(span)
	}
}

// parsedStreams is n entries as a storage read and a parser make them,
// each with its own strings: with perStream 1, a `| json` select's (each
// entry a stream of its labels merged with its metadata and parsed
// labels), else a plain select's (perStream entries a stream, metadata
// merged from its first).
func parsedStreams(n, perStream int) []lokidata.Stream {
	var out []lokidata.Stream
	for i := range n {
		line := fmt.Sprintf(`{"level":"info","status":%d,"latency_ms":%d,"path":"/api/v1/items/%d","msg":"served"}`, 200+i%300, i%997, i)
		e := lokidata.Entry{TimestampNs: int64(n - i), Line: line,
			StructuredMetadata: lokidata.Labels{{Name: "detected_level", Value: strings.Clone("info")}}}
		if perStream == 1 { // appended one by one, as a parser does
			for _, l := range [][2]string{{"level", "info"}, {"status", strconv.Itoa(200 + i%300)},
				{"latency_ms", strconv.Itoa(i % 997)}, {"path", "/api/v1/items/" + strconv.Itoa(i)}, {"msg", "served"}} {
				e.Parsed = append(e.Parsed, lokidata.Label{Name: strings.Clone(l[0]), Value: strings.Clone(l[1])})
			}
		}
		if i%perStream == 0 {
			base := lokidata.Labels{{Name: "app", Value: strings.Clone("checkout")}, {Name: "env", Value: strings.Clone("prod")},
				{Name: "namespace", Value: strings.Clone("shop")}, {Name: "pod", Value: "checkout-" + strconv.Itoa(i)}}
			out = append(out, lokidata.Stream{Labels: logrow.MergeLabels(base, append(slices.Clone(e.StructuredMetadata), e.Parsed...))})
		}
		s := &out[len(out)-1]
		s.Entries = append(s.Entries, e)
	}
	return out
}
