package needles

import (
	"encoding/gob"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

var t1 = tenant.ID{AccountID: 1}

// spans are the parts' time ranges.
func spans(parts []Part, ok bool) ([][2]int64, bool) {
	var r [][2]int64
	for _, p := range parts {
		r = append(r, [2]int64{p.Start, p.End})
	}
	return r, ok
}

// idLines are n lines an hour over hours, each with a random 19- or 20-digit
// id inside JSON, as the scale bench's lines hold them.
func idLines(rng *rand.Rand, hours, n int) ([]lokidata.Stream, []string, []int64) {
	var s lokidata.Stream
	var ids []string
	var times []int64
	for h := range hours {
		for i := range n {
			id := fmt.Sprint(1e18 + rng.Uint64N(9e18)) // 19 digits, some inside a 20th
			if rng.IntN(2) == 0 {
				id = fmt.Sprint(rng.IntN(10)) + id
			}
			ts := int64(h)*hourNs + int64(i)*(hourNs/int64(n))
			s.Entries = append(s.Entries, lokidata.Entry{TimestampNs: ts,
				Line: `{"message":"the queen of hearts","trace_id":"` + id + `","level":"info"}`})
			ids, times = append(ids, id), append(times, ts)
		}
	}
	return []lokidata.Stream{s}, ids, times
}

func TestCandidatesHoldEveryHourWithTheNeedle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const hours = 720
	streams, ids, times := idLines(rng, hours, 200)
	ix := New(Config{MaxBytes: 1 << 30})
	ix.Writing(t1, streams)
	falseHours := 0
	for k := 0; k < len(ids); k += 97 {
		needle := ids[k][len(ids[k])-19:] // inside a 20-digit id: a substring, not a word
		ranges, ok := spans(ix.Candidates(t1, needle, 0, hours*hourNs-1))
		if !ok {
			t.Fatalf("%s: not answered", needle)
		}
		found := false
		for _, r := range ranges {
			found = found || r[0] <= times[k] && times[k] <= r[1]
			falseHours += int((r[1] - r[0] + 1) / hourNs)
		}
		if !found {
			t.Fatalf("%s at %d: not in %v", needle, times[k], ranges)
		}
		falseHours--
	}
	if checked := (len(ids) + 96) / 97; falseHours > checked/10 {
		t.Errorf("%d hours read for nothing over %d searches of %d hours", falseHours, checked, hours)
	}
}

func TestCandidatesNeedALongRun(t *testing.T) {
	ix := New(Config{MaxBytes: 1 << 20})
	ix.Writing(t1, []lokidata.Stream{{Entries: []lokidata.Entry{{TimestampNs: 5, Line: "id=0123456789abcdef0123"}}}})
	for _, s := range []string{"0123456789abcde", "6f2d1c1e-8a6b-4c7e-9d2f-3a4b5c6d7e8f", ""} {
		if _, ok := ix.Candidates(t1, s, 0, hourNs); ok {
			t.Errorf("%q: answered without a run of %d word bytes", s, Window)
		}
	}
	for s, want := range map[string]int{"=0123456789abcdef": 1, "123456789abcdef0": 1, "123456789abcdef1": 0, "0123456789abcdef0123 ": 1} {
		ranges, ok := spans(ix.Candidates(t1, s, 0, 3*hourNs))
		if !ok || len(ranges) != want || want == 1 && ranges[0] != [2]int64{0, hourNs - 1} {
			t.Errorf("%q: %v %v, want %d range(s) of the first hour", s, ranges, ok, want)
		}
	}
	if ranges, ok := ix.Candidates(tenant.ID{AccountID: 2}, "0123456789abcdef", 0, hourNs); !ok || len(ranges) != 0 {
		t.Errorf("another tenant: %v %v", ranges, ok)
	}
}

func TestCandidatesClipAndJoinHours(t *testing.T) {
	line := "x " + strings.Repeat("a", 20) + " y"
	ix := New(Config{MaxBytes: 1 << 20})
	ix.Writing(t1, []lokidata.Stream{{Entries: []lokidata.Entry{
		{TimestampNs: 1*hourNs + 5, Line: line}, {TimestampNs: 2*hourNs + 5, Line: line}, {TimestampNs: 4 * hourNs, Line: line}}}})
	ranges, ok := spans(ix.Candidates(t1, strings.Repeat("a", 16), hourNs+10, 4*hourNs+7))
	want := [][2]int64{{hourNs + 10, 3*hourNs - 1}, {4 * hourNs, 4*hourNs + 7}}
	if !ok || fmt.Sprint(ranges) != fmt.Sprint(want) {
		t.Errorf("got %v %v, want %v", ranges, ok, want)
	}
}

func TestEvictionLeavesOlderHoursWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	streams, ids, times := idLines(rng, 10, 100)
	ix := New(Config{MaxBytes: 4 * firstSegmentBits / 8}) // four hours' filters of 100 ids
	ix.Writing(t1, streams)
	if ix.Bytes() > 4*firstSegmentBits/8 {
		t.Fatalf("%d bytes kept", ix.Bytes())
	}
	ranges, ok := spans(ix.Candidates(t1, ids[0], 30, 10*hourNs-1))
	if !ok || len(ranges) != 1 || ranges[0] != [2]int64{30, 6*hourNs - 1} {
		t.Errorf("an id in a dropped hour: %v %v, want the dropped hours whole", ranges, ok)
	}
	last := len(ids) - 1
	ranges, ok = spans(ix.Candidates(t1, ids[last], 0, 10*hourNs-1))
	if !ok || len(ranges) != 2 || ranges[0][1] != 6*hourNs-1 || ranges[1][0] > times[last] || ranges[1][1] < times[last] {
		t.Errorf("an id in a kept hour: %v %v", ranges, ok)
	}
	// A late line for a dropped hour is not added back as if it were whole.
	ix.Writing(t1, []lokidata.Stream{{Entries: []lokidata.Entry{{TimestampNs: 0, Line: strings.Repeat("b", 16)}}}})
	if ranges, _ := spans(ix.Candidates(t1, strings.Repeat("b", 16), 0, hourNs-1)); len(ranges) != 1 || ranges[0] != [2]int64{0, hourNs - 1} {
		t.Errorf("a dropped hour: %v", ranges)
	}
}

func BenchmarkWriting(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	streams, _, _ := idLines(rng, 1, 1000)
	ix := New(Config{MaxBytes: 1 << 30})
	b.ReportAllocs()
	for b.Loop() {
		ix.Writing(t1, streams)
	}
}

// TestCandidatesFindWhatParsersAndLabelsRead: an id held only by a stream
// label, a structured metadata value or a line's \u escapes is found in
// its hour, and in no other.
func TestCandidatesFindWhatParsersAndLabelsRead(t *testing.T) {
	const (
		inLabel    = "a1b2c3d4e5f6a7b8c9d0"
		inMetadata = "1234567890123456789"
		escaped    = "9876543210987654321"
	)
	streams := []lokidata.Stream{
		{Labels: lokidata.Labels{{Name: "trace_id", Value: inLabel}},
			Entries: []lokidata.Entry{{TimestampNs: 1 * hourNs, Line: "plain"}, {TimestampNs: 1*hourNs + 1, Line: "plain"}}},
		{Labels: lokidata.Labels{{Name: "app", Value: "x"}}, Entries: []lokidata.Entry{
			{TimestampNs: 3 * hourNs, Line: "plain", StructuredMetadata: lokidata.Labels{{Name: "trace_id", Value: inMetadata}}},
			{TimestampNs: 5 * hourNs, Line: `{"trace_id":"\u0039876543210\u0039\u00387654321"}`},
			{TimestampNs: 7 * hourNs, Line: `{"path":"C:\\9876543210987654321\n","x":"\u00e9"}`},
		}},
	}
	ix := New(Config{MaxBytes: 1 << 20})
	ix.Writing(t1, streams)
	for s, want := range map[string][][2]int64{
		inLabel:    {{1 * hourNs, 2*hourNs - 1}},
		inMetadata: {{3 * hourNs, 4*hourNs - 1}},
		escaped:    {{5 * hourNs, 6*hourNs - 1}, {7 * hourNs, 8*hourNs - 1}},
	} {
		got, ok := spans(ix.Candidates(t1, s, 0, 10*hourNs))
		if !ok || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v %v, want %v", s, got, ok, want)
		}
	}
}

func TestReadEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`a\u0031b`:        "a1b",
		`a\u00e9b\n\"c\\`: "a b    c  ",
		`\u005F\u12`:      "_  12",
		`end\`:            `end\`,
	} {
		if got := readEscapes(in); got != want {
			t.Errorf("readEscapes(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSavedFiltersComeBackWithTheirGeneration: a saved index answers as
// before once loaded with its generation, with each tenant's since; with
// another generation nothing is restored; the file is gone either way.
func TestSavedFiltersComeBackWithTheirGeneration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	streams, ids, _ := idLines(rng, 48, 100)
	ix := New(Config{MaxBytes: 1 << 30})
	ix.Writing(t1, streams)
	t2 := tenant.ID{AccountID: 2}
	path, other := filepath.Join(t.TempDir(), "needles"), filepath.Join(t.TempDir(), "other")
	for _, p := range []string{path, other} {
		if err := ix.Save(p, 42, map[tenant.ID]int64{t1: -5, t2: 7}); err != nil {
			t.Fatal(err)
		}
	}
	stale := New(Config{MaxBytes: 1 << 30})
	if since, err := stale.Load(other, 41); err != nil || since != nil || stale.Bytes() != 0 {
		t.Errorf("another generation's filters restored: %v, %d B, %v", since, stale.Bytes(), err)
	}
	again := New(Config{MaxBytes: 1 << 30})
	since, err := again.Load(path, 42)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, other} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survives its loading", p)
		}
	}
	if since[t1] != -5 || since[t2] != 7 || len(since) != 2 || again.Bytes() != ix.Bytes() {
		t.Errorf("restored since %v, %d B; want t1 -5, t2 7, %d B", since, again.Bytes(), ix.Bytes())
	}
	for _, id := range ids[:200] {
		want, _ := ix.Candidates(t1, id, 0, 48*hourNs)
		got, _ := again.Candidates(t1, id, 0, 48*hourNs)
		if fmt.Sprint(got) != fmt.Sprint(want) || len(got) == 0 {
			t.Fatalf("%s: %v after loading, %v before", id, got, want)
		}
	}
}

// TestAnOlderLayoutIsNotRestored: a file of the layout before buckets
// (its Format 0 or 1) restores nothing, even with the right generation.
func TestAnOlderLayoutIsNotRestored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "needles")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	old := struct {
		Format     int
		Generation int64
		Tenants    []struct{ AccountID, ProjectID uint32 }
	}{Format: 1, Generation: 42, Tenants: []struct{ AccountID, ProjectID uint32 }{{AccountID: 1}}}
	if err := gob.NewEncoder(f).Encode(old); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ix := New(Config{MaxBytes: 1 << 20})
	if since, err := ix.Load(path, 42); err != nil || since != nil {
		t.Errorf("an older layout restored: %v %v", since, err)
	}
}
