package needles

import (
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// Filter sizing: a bucket's filter for an hour is Bloom filter segments,
// each taking 1/bitsPerEntry of its bits in windows at probes probes each
// (a false positive rate near 5.6% a window and full segment). The first holds
// as many windows as the bucket's hour before took (firstBits), at least
// 512 B, and each next one is twice the last, up to 512 KiB.
//
// The windows of one string (a line, a label value) go into one segment,
// so a string is looked for in each segment alone: a string of four
// windows (a 19-digit id) passes a full segment without being in it about
// 0.056^4 (1e-5) of the time, where windows looked for across all of an
// hour's segments would pass far more often (TestFalseHoursAtThirtyMillionLines).
const (
	firstSegmentBits = 1 << 12 // 512 B
	maxSegmentBits   = 1 << 22 // 512 KiB
	bitsPerEntry     = 6
	probes           = 4
)

// filter is an hour's windows: segments, a new one started when the last
// is full. Every window of a string added at once is in one segment.
type filter struct {
	segments []*segment
	bytes    int
}

type segment struct {
	bits    []uint64
	entries int
}

func (f *filter) size() int { return f.bytes }

// entries is how many windows the filter took.
func (f *filter) entries() int {
	n := 0
	for _, s := range f.segments {
		n += s.entries
	}
	return n
}

// segmentBitsFor is the size of a segment that holds n windows: a whole
// number of words, within the segment bounds.
func segmentBitsFor(n int) int {
	bits := (n*bitsPerEntry + 63) / 64 * 64
	return min(max(bits, firstSegmentBits), maxSegmentBits)
}

// addAll adds the windows of one string to the newest segment, starting a
// new one first when it is full (so the last may overfill by a string):
// the first of firstBits (read only for the first), the next twice the
// last.
// A window the segment may hold already is not added again: a word every
// line repeats (a constant field name) takes its room once a segment.
// Skipping a false positive loses nothing: its bits stay set.
func (f *filter) addAll(hashes []uint64, firstBits int) {
	if len(hashes) == 0 {
		return
	}
	n := len(f.segments)
	if n == 0 || f.segments[n-1].full() {
		bits := firstBits
		if n > 0 {
			bits = min(2*64*len(f.segments[n-1].bits), maxSegmentBits)
		}
		f.segments = append(f.segments, &segment{bits: make([]uint64, bits/64)})
		f.bytes += bits / 8
		n++
	}
	s := f.segments[n-1]
	m := uint64(64 * len(s.bits))
	for _, h := range hashes {
		if s.has(h) {
			continue
		}
		s.entries++
		for i := range uint64(probes) {
			b := probe(h, i, m)
			s.bits[b/64] |= 1 << (b % 64)
		}
	}
}

func (s *segment) full() bool { return s.entries >= 64*len(s.bits)/bitsPerEntry }

// hasAll reports whether one segment may hold every hash.
func (f *filter) hasAll(hashes []uint64) bool {
	for _, s := range f.segments {
		if s.hasAll(hashes) {
			return true
		}
	}
	return false
}

func (s *segment) hasAll(hashes []uint64) bool {
	for _, h := range hashes {
		if !s.has(h) {
			return false
		}
	}
	return true
}

func (s *segment) has(h uint64) bool {
	m := uint64(64 * len(s.bits))
	for i := range uint64(probes) {
		b := probe(h, i, m)
		if s.bits[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

// probe is the i-th of m bits for h (double hashing of its two halves).
func probe(h, i, m uint64) uint64 {
	return (h + i*(h>>32|1)) % m
}

// appendWindowHashes appends the hash of every window of every long run
// of a line: each window ends where the run so far holds Window bytes.
func appendWindowHashes(dst []uint64, line string) []uint64 {
	run := 0
	for i := 0; i < len(line); i++ {
		run = (run + 1) & runMask[line[i]] // a byte outside words ends the run
		if run >= Window {
			dst = append(dst, xxhash.Sum64String(line[i+1-Window:i+1]))
		}
	}
	return dst
}

// runMask keeps a run's length over a word byte (ASCII letters, digits
// and '_') and clears it otherwise.
var runMask = func() (t [256]int) {
	for c := range 256 {
		if c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			t[c] = -1
		}
	}
	return t
}()

// readEscapes returns line with each backslash escape replaced: \uXXXX of
// a word byte by that byte, any other by spaces (bytes outside words, as
// what they stand for is: a quote, a slash, a control character, a rune
// outside ASCII).
func readEscapes(line string) string {
	b := make([]byte, 0, len(line))
	for i := 0; i < len(line); i++ {
		if line[i] != '\\' || i+1 == len(line) {
			b = append(b, line[i])
			continue
		}
		if line[i+1] == 'u' && i+6 <= len(line) {
			if r, err := strconv.ParseUint(line[i+2:i+6], 16, 16); err == nil {
				if r < 0x80 && runMask[r] != 0 {
					b = append(b, byte(r))
				} else {
					b = append(b, ' ')
				}
				i += 5
				continue
			}
		}
		b = append(b, ' ', ' ')
		i++
	}
	return string(b)
}
