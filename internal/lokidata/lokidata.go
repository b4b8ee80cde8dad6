// Package lokidata holds the data types shared by every layer of vloki:
// labels, log entries, streams and metric samples, in Loki's terms.
package lokidata

import (
	"sort"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Label is one name/value pair.
type Label struct {
	Name  string
	Value string
}

// Labels is a label set. Functions that build one keep it sorted by name.
type Labels []Label

// Sort orders the set by name, the order Loki prints and compares them in.
func (ls Labels) Sort() {
	sort.Slice(ls, func(i, j int) bool { return ls[i].Name < ls[j].Name })
}

// Get returns the value of name and whether it is present.
func (ls Labels) Get(name string) (string, bool) {
	for _, l := range ls {
		if l.Name == name {
			return l.Value, true
		}
	}
	return "", false
}

// String formats a sorted set the way Loki and Prometheus do:
// {a="b", c="d"}. Loki orders streams by this string.
func (ls Labels) String() string {
	n := 2
	for _, l := range ls {
		n += len(l.Name) + len(l.Value) + 5 // ", ", '=' and the quotes
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('{')
	for i, l := range ls {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(l.Name)
		b.WriteByte('=')
		writeQuoted(&b, l.Value)
	}
	b.WriteByte('}')
	return b.String()
}

// writeQuoted writes strconv.Quote(v). Most label values are printable
// ASCII without quotes or backslashes, which Quote leaves as they are:
// those are written directly (a push builds each stream's string several
// times; Quote's rune checks and copy were half of that).
func writeQuoted(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			b.WriteString(strconv.Quote(v))
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(v)
	b.WriteByte('"')
}

// Entry is one log line of a stream.
type Entry struct {
	// TimestampNs is the entry time in Unix nanoseconds.
	TimestampNs int64
	Line        string
	// StructuredMetadata are the non-indexed labels stored with the entry.
	StructuredMetadata Labels
	// Parsed are the labels that query-time parsers extracted.
	Parsed Labels
	// Seq, when not 0, is the entry's place in arrival order among the
	// entries of its stream at its timestamp (see schema.SeqField).
	Seq uint64
}

// Stream is a set of entries sharing one label set.
type Stream struct {
	Labels  Labels
	Entries []Entry
	// Key, when set, is Labels.String(): the push path writes it once its
	// labels are final, so the steps after (dedup, the stream index,
	// arrival numbers, the live miner) do not each build it again.
	Key string
}

// LabelsKey is the stream's label string: Key when set, else built.
func (s *Stream) LabelsKey() string {
	if s.Key != "" {
		return s.Key
	}
	return s.Labels.String()
}

// Point is one metric sample.
type Point struct {
	TimestampMs int64
	Value       float64
}

// Series is a metric series: a label set and its points in time order.
type Series struct {
	Metric Labels
	Points []Point
}

// Compare orders label sets as Prometheus' labels.Compare does: pairwise by
// name, then value; a set that is a prefix of another sorts first.
func Compare(a, b Labels) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i].Name != b[i].Name {
			return strings.Compare(a[i].Name, b[i].Name)
		}
		if a[i].Value != b[i].Value {
			return strings.Compare(a[i].Value, b[i].Value)
		}
	}
	return len(a) - len(b)
}

// Without returns the set minus the named labels.
func (ls Labels) Without(names ...string) Labels {
	out := make(Labels, 0, len(ls))
	for _, l := range ls {
		drop := false
		for _, n := range names {
			if l.Name == n {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, l)
		}
	}
	return out
}

// Only returns the labels whose names are listed.
func (ls Labels) Only(names ...string) Labels {
	out := make(Labels, 0, len(names))
	for _, l := range ls {
		for _, n := range names {
			if l.Name == n {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// Hash is Prometheus' labels hash (xxhash of name, 0xff, value, 0xff for
// every label): Loki's stream fingerprint, which orders entries of
// different streams that share a timestamp.
func (ls Labels) Hash() uint64 {
	var b []byte
	for _, l := range ls {
		if l.Name == "__name__" {
			continue
		}
		b = append(b, l.Name...)
		b = append(b, 0xff)
		b = append(b, l.Value...)
		b = append(b, 0xff)
	}
	return xxhash.Sum64(b)
}
