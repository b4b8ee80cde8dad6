package livetail

import (
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/logrow"
)

// seenSet remembers delivered tail entries by a 64-bit hash of everything
// the client sees of them, each until a deadline.
type seenSet struct {
	m         map[uint64]time.Time
	nextPrune time.Time
}

func newSeenSet() *seenSet { return &seenSet{m: map[uint64]time.Time{}} }

func (s *seenSet) add(k uint64, until time.Time) { s.m[k] = until }

func (s *seenSet) has(k uint64) bool {
	_, ok := s.m[k]
	return ok
}

// prune forgets expired keys, at most every few seconds.
func (s *seenSet) prune(now time.Time) {
	if now.Before(s.nextPrune) {
		return
	}
	for k, until := range s.m {
		if now.After(until) {
			delete(s.m, k)
		}
	}
	s.nextPrune = now.Add(5 * time.Second)
}

// entryKey hashes a one-entry stream by what the client receives of it:
// labels with structured metadata and parsed labels, timestamp and line.
// The three label sets are merged: a live entry sent with its stream's own
// labels (an empty pipeline) is the history's copy, whose labels hold its
// metadata.
func entryKey(s lokidata.Stream) uint64 {
	d := xxhash.New()
	e := s.Entries[0]
	labels := s.Labels
	if len(e.StructuredMetadata)+len(e.Parsed) > 0 {
		labels = logrow.MergeLabels(logrow.MergeLabels(labels, e.StructuredMetadata), e.Parsed)
	}
	writeLabels(d, labels)
	_, _ = d.WriteString(strconv.FormatInt(e.TimestampNs, 10))
	_, _ = d.WriteString("\xff")
	_, _ = d.WriteString(e.Line)
	_, _ = d.WriteString("\xff")
	return d.Sum64()
}

func writeLabels(d *xxhash.Digest, ls lokidata.Labels) {
	for _, l := range ls {
		_, _ = d.WriteString(l.Name)
		_, _ = d.WriteString("\xfe")
		_, _ = d.WriteString(l.Value)
		_, _ = d.WriteString("\xfe")
	}
	_, _ = d.WriteString("\xff")
}
