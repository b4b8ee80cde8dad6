package lokijson

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/vloki/vloki/internal/lokidata"
)

// Loki's legacy models are written by Go's encoding/json: vloki's legacy
// encoders must produce its bytes for any string, valid UTF-8 or not.
func TestStdStringMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "é", "✓", "<", ">", "&", "\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1b", "\x7f", "\xff", "\u2028", "\u2029", "\xe2\x80"}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		want, _ := json.Marshal(s)
		if got := appendStdString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	}
}

// The legacy tail message is gorilla's WriteJSON (encoding/json) of Loki's
// TailResponse: the same struct shapes, encoded by encoding/json, must
// give the same bytes.
func TestAppendLegacyTailMatchesEncodingJSON(t *testing.T) {
	ts := time.Date(2025, 1, 15, 1, 0, 15, 123456, time.UTC)
	streams := []lokidata.Stream{
		{Labels: lokidata.Labels{{Name: "app", Value: `a&b<"c">\é`}}, Entries: []lokidata.Entry{
			{TimestampNs: ts.UnixNano(), Line: "x <y> \b", StructuredMetadata: lokidata.Labels{{Name: "trace_id", Value: "t"}},
				Parsed: lokidata.Labels{{Name: "z", Value: "1"}, {Name: "b", Value: "&"}}},
		}},
		{Labels: lokidata.Labels{{Name: "app", Value: "b"}}, Entries: []lokidata.Entry{{TimestampNs: ts.Add(time.Second).UnixNano(), Line: "plain"}}},
	}
	type entry struct {
		Timestamp time.Time         `json:"ts"`
		Line      string            `json:"line"`
		Parsed    map[string]string `json:"parsed,omitempty"`
	}
	type stream struct {
		Labels  string  `json:"labels"`
		Entries []entry `json:"entries"`
	}
	var want struct {
		Streams        []stream `json:"streams"`
		DroppedEntries []any    `json:"dropped_entries"`
	}
	for _, s := range streams {
		out := stream{Labels: s.Labels.String()}
		for _, e := range s.Entries {
			var parsed map[string]string
			for _, l := range e.Parsed {
				if parsed == nil {
					parsed = map[string]string{}
				}
				parsed[l.Name] = l.Value
			}
			out.Entries = append(out.Entries, entry{time.Unix(0, e.TimestampNs).UTC(), e.Line, parsed})
		}
		want.Streams = append(want.Streams, out)
	}
	var b strings.Builder
	if err := json.NewEncoder(&b).Encode(want); err != nil {
		t.Fatal(err)
	}
	if got := string(AppendLegacyTail(nil, streams)); got != b.String() {
		t.Fatalf("got  %s\nwant %s", got, b.String())
	}
}

func TestAppendLegacyLabels(t *testing.T) {
	if got := string(AppendLegacyLabels(nil, nil)); got != "{}\n" {
		t.Errorf("no values: %q", got)
	}
	if got := string(AppendLegacyLabels(nil, []string{"app", "env"})); got != `{"values":["app","env"]}`+"\n" {
		t.Errorf("values: %q", got)
	}
}
