package scaledata

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"testing"
	"time"
)

var now = time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)

func quickwit(lines int) *Dataset {
	return New(Config{Now: now, Days: 30, Lines: lines, Seed: 1})
}

// TestDeterministic: the same configuration gives the same lines, whichever
// generator reads them and in whatever order; another seed other lines.
func TestDeterministic(t *testing.T) {
	d := quickwit(1000)
	a, b := d.Gen(), d.Gen()
	for _, i := range []int{999, 0, 500, 1} {
		ra, la := a.Row(i, nil)
		_, _ = b.Row((i+7)%1000, nil) // b's state moved elsewhere first
		rb, lb := b.Row(i, nil)
		if ra != rb || !bytes.Equal(la, lb) {
			t.Fatalf("line %d differs between readers:\n%s\n%s", i, la, lb)
		}
		rc, lc := New(d.Config()).Gen().Row(i, nil)
		if ra != rc || !bytes.Equal(la, lc) {
			t.Fatalf("line %d differs between datasets of one config", i)
		}
	}
	other := New(Config{Now: now, Days: 30, Lines: 1000, Seed: 2})
	_, l1 := d.Gen().Row(3, nil)
	_, l2 := other.Gen().Row(3, nil)
	if bytes.Equal(l1, l2) {
		t.Fatal("seeds 1 and 2 gave the same line")
	}
}

// TestRecordShape: each line is the benchmark's JSON record, its labels
// agree with its fields, and lines average about the published 870 bytes.
func TestRecordShape(t *testing.T) {
	d := quickwit(2000)
	g := d.Gen()
	total := 0
	for i := range d.Lines() {
		row, line := g.Row(i, nil)
		total += len(line)
		var rec struct {
			Cloud   struct{ Region string }
			Input   struct{ Type string }
			Level   string
			Message string
			TraceID string `json:"trace_id"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i, err, line)
		}
		ls := d.Streams()[row.Stream].Labels
		if v, _ := ls.Get(LabelRegion); v != rec.Cloud.Region {
			t.Fatalf("line %d: label %s, field %s", i, v, rec.Cloud.Region)
		}
		if v, _ := ls.Get(LabelLevel); v != rec.Level {
			t.Fatalf("line %d: label %s, field %s", i, v, rec.Level)
		}
		if v, _ := ls.Get(LabelInput); v != rec.Input.Type {
			t.Fatalf("line %d: label %s, field %s", i, v, rec.Input.Type)
		}
		if rec.TraceID == "" || !syslogMessage.MatchString(rec.Message) {
			t.Fatalf("line %d: message %q, trace_id %q", i, rec.Message, rec.TraceID)
		}
	}
	if mean := total / d.Lines(); mean < 800 || mean > 940 {
		t.Errorf("mean line %d bytes, want about 870", mean)
	}
}

var syslogMessage = regexp.MustCompile(`^\S+Z [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d ip(-\d{1,3}){4} [a-z]+:( [a-z]+){0,24}$`)

// TestTimeSpread: lines are in time order over [Start, End), spread evenly.
func TestTimeSpread(t *testing.T) {
	d := quickwit(10_000)
	g := d.Gen()
	prev := int64(0)
	for i := range d.Lines() {
		row, _ := g.Row(i, nil)
		if row.TimeNs < prev || row.TimeNs < d.Start().UnixNano() || row.TimeNs >= d.End().UnixNano() {
			t.Fatalf("line %d at %s out of order or span", i, time.Unix(0, row.TimeNs))
		}
		prev = row.TimeNs
	}
	if got := d.End().Sub(d.Start()); got != 30*24*time.Hour {
		t.Fatalf("span %s", got)
	}
	first, _ := g.Row(0, nil)
	if first.TimeNs-d.Start().UnixNano() > int64(time.Hour) || d.End().UnixNano()-prev > int64(time.Hour) {
		t.Fatal("lines do not cover the whole span")
	}
}

// TestStreams: 100 streams (25 regions × 4 levels), 25,600 with hosts, and
// a sample of lines reaches every one.
func TestStreams(t *testing.T) {
	for _, c := range []struct {
		hosts bool
		want  int
		lines int
	}{{false, 100, 5_000}, {true, 25_600, 400_000}} {
		d := New(Config{Now: now, Days: 30, Lines: c.lines, Hosts: c.hosts, Seed: 1})
		if len(d.Streams()) != c.want {
			t.Fatalf("hosts=%v: %d streams, want %d", c.hosts, len(d.Streams()), c.want)
		}
		keys := map[string]bool{}
		for _, s := range d.Streams() {
			keys[s.Key] = true
		}
		if len(keys) != c.want {
			t.Fatalf("hosts=%v: %d distinct label sets", c.hosts, len(keys))
		}
		seen := make([]bool, len(d.Streams()))
		g, n := d.Gen(), 0
		for i := range d.Lines() {
			row, _ := g.Row(i, nil)
			if !seen[row.Stream] {
				seen[row.Stream], n = true, n+1
			}
		}
		if n != c.want {
			t.Errorf("hosts=%v: %d lines reach %d of %d streams", c.hosts, c.lines, n, c.want)
		}
	}
}

// TestHostBucket: bucketed_hostname is the SHA-256 prefix of host.name,
// as the benchmark's Vector remap computes it.
func TestHostBucket(t *testing.T) {
	d := New(Config{Now: now, Days: 1, Lines: 500, Hosts: true, Seed: 1})
	g := d.Gen()
	for i := range d.Lines() {
		row, line := g.Row(i, nil)
		var rec struct{ Host struct{ Name string } }
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		want := sha256Prefix(rec.Host.Name)
		if v, _ := d.Streams()[row.Stream].Labels.Get(LabelHostname); v != want {
			t.Fatalf("line %d: host %s bucket %s, label %s", i, rec.Host.Name, want, v)
		}
	}
}

// TestNounFrequency: "queen" is a word of a few percent of messages.
func TestNounFrequency(t *testing.T) {
	d := quickwit(50_000)
	g := d.Gen()
	queen := regexp.MustCompile(`\bqueen\b`)
	n := 0
	for i := range d.Lines() {
		_, line := g.Row(i, nil)
		if queen.Match(line) {
			n++
		}
	}
	if share := float64(n) / float64(d.Lines()); share < 0.015 || share > 0.05 {
		t.Errorf("queen in %.2f%% of lines, want a few percent", 100*share)
	}
}

// TestTraceIDsUnique: no two lines of a sample share a trace_id, and the
// line holds the id TraceID gives for it.
func TestTraceIDsUnique(t *testing.T) {
	d := quickwit(30_000_000)
	seen := map[uint64]int{}
	for _, i := range sampleIndexes(d.Lines(), 200_000) {
		id := d.TraceID(i)
		if j, dup := seen[id]; dup && j != i {
			t.Fatalf("lines %d and %d share trace_id %d", i, j, id)
		}
		seen[id] = i
	}
	g := d.Gen()
	for _, i := range []int{0, 12_345_678, d.Lines() - 1} {
		_, line := g.Row(i, nil)
		var rec struct {
			TraceID string `json:"trace_id"`
		}
		if err := json.Unmarshal(line, &rec); err != nil || rec.TraceID != d.TraceIDString(i) {
			t.Fatalf("line %d: trace_id %q, want %s (%v)", i, rec.TraceID, d.TraceIDString(i), err)
		}
	}
}

// sampleIndexes are n indexes below lines: the first and last stretches
// and a stride through the middle.
func sampleIndexes(lines, n int) []int {
	var out []int
	for i := range n / 4 {
		out = append(out, i, lines-1-i)
	}
	for i := 0; i < lines; i += lines / (n / 2) {
		out = append(out, i)
	}
	return out
}

func sha256Prefix(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:1])
}
