package lokijson

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/vloki/vloki/internal/lokidata"
)

// The expected bytes follow jsoniter's documented escaping rules, which
// Loki's marshal package uses (WriteString for labels,
// WriteStringWithHTMLEscaped for lines).
func TestStringEscaping(t *testing.T) {
	cases := []struct{ in, plain, html string }{
		{"abc", `"abc"`, `"abc"`},
		{"a\"b\\c", `"a\"b\\c"`, `"a\"b\\c"`},
		{"\n\r\t\x1b\x00", `"\n\r\t\u001b\u0000"`, `"\n\r\t\u001b\u0000"`},
		{"<a&b>", `"<a&b>"`, `"\u003ca\u0026b\u003e"`},
		{"héllo ✓", `"héllo ✓"`, `"héllo ✓"`},
		{"bad\xffutf8", "\"bad\xffutf8\"", `"bad\ufffdutf8"`},
		{"line\u2028sep\u2029", "\"line\u2028sep\u2029\"", `"line\u2028sep\u2029"`},
	}
	for _, c := range cases {
		if got := string(appendString(nil, c.in)); got != c.plain {
			t.Errorf("plain %q: got %s want %s", c.in, got, c.plain)
		}
		if got := string(appendHTMLString(nil, c.in)); got != c.html {
			t.Errorf("html %q: got %s want %s", c.in, got, c.html)
		}
	}
}

func TestAppendStreams(t *testing.T) {
	streams := []lokidata.Stream{{
		Labels: lokidata.Labels{{Name: "app", Value: "a"}, {Name: "level", Value: "info"}},
		Entries: []lokidata.Entry{
			{TimestampNs: 1700000000123456789, Line: "hello", StructuredMetadata: lokidata.Labels{{Name: "trace_id", Value: "abc"}},
				Parsed: lokidata.Labels{{Name: "status", Value: "200"}}},
			{TimestampNs: 1699999999123456789, Line: "plain"},
		},
	}}
	got := string(AppendStreams(nil, streams, []string{"categorize-labels"}, Stats{}))
	want := `{"status":"success","data":{"resultType":"streams","encodingFlags":["categorize-labels"],"result":[` +
		`{"stream":{"app":"a","level":"info"},"values":[["1700000000123456789","hello",{"structuredMetadata":{"trace_id":"abc"},"parsed":{"status":"200"}}],["1699999999123456789","plain",{}]]}` +
		`],"stats":`
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	plain := string(AppendStreams(nil, streams[:1], nil, Stats{}))
	if !strings.Contains(plain, `["1699999999123456789","plain"]`) || strings.Contains(plain, "encodingFlags") {
		t.Fatalf("plain encoding wrong: %s", plain)
	}
}

func TestZeroStatsMatchLoki(t *testing.T) {
	// The exact zero object Loki writes (reference/loki-api.md §1.3).
	const lokiZero = `{"summary":{"bytesProcessedPerSecond":0,"linesProcessedPerSecond":0,"totalBytesProcessed":0,"totalLinesProcessed":0,"execTime":0,"queueTime":0,"subqueries":0,"totalEntriesReturned":0,"splits":0,"shards":0,"totalPostFilterLines":0,"totalStructuredMetadataBytesProcessed":0},"querier":{"store":{"totalChunksRef":0,"totalChunksDownloaded":0,"chunksDownloadTime":0,"queryReferencedStructuredMetadata":false,"queryUsedV2Engine":false,"chunk":{"headChunkBytes":0,"headChunkLines":0,"decompressedBytes":0,"decompressedLines":0,"compressedBytes":0,"totalDuplicates":0,"postFilterLines":0,"headChunkStructuredMetadataBytes":0,"decompressedStructuredMetadataBytes":0},"chunkRefsFetchTime":0,"congestionControlLatency":0,"pipelineWrapperFilteredLines":0,"dataobj":{"prePredicateDecompressedRows":0,"prePredicateDecompressedBytes":0,"prePredicateDecompressedStructuredMetadataBytes":0,"postPredicateRows":0,"postPredicateDecompressedBytes":0,"postPredicateStructuredMetadataBytes":0,"postFilterRows":0,"pagesScanned":0,"pagesDownloaded":0,"pagesDownloadedBytes":0,"pageBatches":0,"totalRowsAvailable":0,"totalPageDownloadTime":0}},"querierExecTime":0},"ingester":{"totalReached":0,"totalChunksMatched":0,"totalBatches":0,"totalLinesSent":0,"store":{"totalChunksRef":0,"totalChunksDownloaded":0,"chunksDownloadTime":0,"queryReferencedStructuredMetadata":false,"queryUsedV2Engine":false,"chunk":{"headChunkBytes":0,"headChunkLines":0,"decompressedBytes":0,"decompressedLines":0,"compressedBytes":0,"totalDuplicates":0,"postFilterLines":0,"headChunkStructuredMetadataBytes":0,"decompressedStructuredMetadataBytes":0},"chunkRefsFetchTime":0,"congestionControlLatency":0,"pipelineWrapperFilteredLines":0,"dataobj":{"prePredicateDecompressedRows":0,"prePredicateDecompressedBytes":0,"prePredicateDecompressedStructuredMetadataBytes":0,"postPredicateRows":0,"postPredicateDecompressedBytes":0,"postPredicateStructuredMetadataBytes":0,"postFilterRows":0,"pagesScanned":0,"pagesDownloaded":0,"pagesDownloadedBytes":0,"pageBatches":0,"totalRowsAvailable":0,"totalPageDownloadTime":0}}},"cache":{"chunk":{"entriesFound":0,"entriesRequested":0,"entriesStored":0,"bytesReceived":0,"bytesSent":0,"requests":0,"downloadTime":0,"queryLengthServed":0},"index":{"entriesFound":0,"entriesRequested":0,"entriesStored":0,"bytesReceived":0,"bytesSent":0,"requests":0,"downloadTime":0,"queryLengthServed":0},"result":{"entriesFound":0,"entriesRequested":0,"entriesStored":0,"bytesReceived":0,"bytesSent":0,"requests":0,"downloadTime":0,"queryLengthServed":0},"statsResult":{"entriesFound":0,"entriesRequested":0,"entriesStored":0,"bytesReceived":0,"bytesSent":0,"requests":0,"downloadTime":0,"queryLengthServed":0},"volumeResult":{"entriesFound":0,"entriesRequested":0,"entriesStored":0,"bytesReceived":0,"bytesSent":0,"requests":0,"downloadTime":0,"queryLengthServed":0},"seriesResult":{"entriesFound":0,"entriesRequested":0,"entriesStored":0,"bytesReceived":0,"bytesSent":0,"requests":0,"downloadTime":0,"queryLengthServed":0},"labelResult":{"entriesFound":0,"entriesRequested":0,"entriesStored":0,"bytesReceived":0,"bytesSent":0,"requests":0,"downloadTime":0,"queryLengthServed":0},"instantMetricResult":{"entriesFound":0,"entriesRequested":0,"entriesStored":0,"bytesReceived":0,"bytesSent":0,"requests":0,"downloadTime":0,"queryLengthServed":0}},"index":{"totalChunks":0,"postFilterChunks":0,"shardsDuration":0,"usedBloomFilters":false,"totalStreams":0,"chunkRefsLookupTime":0,"bloomFilterTime":0}}`
	if got := string(Stats{}.appendTo(nil)); got != lokiZero {
		t.Fatalf("zero stats differ:\n got  %s\n want %s", got, lokiZero)
	}
}

func TestLabelsAndSeries(t *testing.T) {
	if got := string(AppendLabels(nil, nil)); got != "{\"status\":\"success\"}\n" {
		t.Errorf("empty labels: %s", got)
	}
	if got := string(AppendLabels(nil, []string{"a", "b"})); got != "{\"status\":\"success\",\"data\":[\"a\",\"b\"]}\n" {
		t.Errorf("labels: %s", got)
	}
	if got := string(AppendSeries(nil, nil)); got != "{\"status\":\"success\",\"data\":[]}\n" {
		t.Errorf("empty series: %s", got)
	}
}

func BenchmarkAppendStreams(b *testing.B) {
	for _, n := range []int{100, 10000} {
		s := lokidata.Stream{Labels: lokidata.Labels{{Name: "app", Value: "api"}}}
		for i := 0; i < n; i++ {
			s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: int64(i), Line: `{"level":"info","msg":"request served <ok>","status":200,"took":"15ms"}`})
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buf = AppendStreams(buf[:0], []lokidata.Stream{s}, nil, Stats{})
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}

func TestAppendModelTimeMatchesFloatFormatting(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200000; i++ {
		ms := r.Int64N(1 << 53)
		if i%3 == 0 {
			ms = r.Int64N(4e12)
		}
		if i%7 == 0 {
			ms -= ms % 1000
		}
		want := strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
		if got := string(appendModelTime(nil, ms)); got != want {
			t.Fatalf("%d ms: %s, want %s", ms, got, want)
		}
	}
	for _, ms := range []int64{-1500, -1, 1 << 53, 1<<63 - 1} {
		if got, want := string(appendModelTime(nil, ms)), strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64); got != want {
			t.Fatalf("%d ms: %s, want %s", ms, got, want)
		}
	}
}

// TestAppendValueMatchesFloatFormatting: the integer path and the copy of
// a repeated value write what strconv 'f' -1 writes (Loki's form).
func TestAppendValueMatchesFloatFormatting(t *testing.T) {
	values := []float64{0, math.Copysign(0, -1), 1, -1, 7, 1 << 52, 1<<53 - 1, 1 << 53, 1 << 60, -(1 << 53), 0.5, 1e21, 1e-7,
		math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64, 12345.000001, 3600}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		values = append(values, float64(r.Int64N(1<<54)-1<<53), r.NormFloat64()*1e6, math.Trunc(r.NormFloat64()*1e3))
	}
	for _, v := range values {
		if got, want := string(appendValue(nil, v)), strconv.FormatFloat(v, 'f', -1, 64); got != want {
			t.Fatalf("%v: %s, want %s", v, got, want)
		}
	}
	var points []lokidata.Point
	var want []byte
	for i, v := range values {
		p := lokidata.Point{TimestampMs: int64(i) * 15000, Value: v}
		for range i % 3 { // runs of repeated values, -0 after 0
			points = append(points, p)
		}
	}
	for i, p := range points {
		if i > 0 {
			want = append(want, ',')
		}
		want = append(want, '[')
		want = append(want, strconv.FormatFloat(float64(p.TimestampMs)/1000, 'f', -1, 64)...)
		want = append(want, ",\""+strconv.FormatFloat(p.Value, 'f', -1, 64)+"\"]"...)
	}
	if got := appendPoints(nil, points); string(got) != string(want) {
		t.Fatalf("points differ:\n%s\nwant\n%s", got, want)
	}
}
