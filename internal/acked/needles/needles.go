// Package needles narrows a substring search (a trace id, a request id) to
// the hours of entry time that can hold it, when vloki is the only writer
// of its storage.
//
// For every row about to be written it keeps, per tenant and UTC hour of
// the entry's time, a Bloom filter of each Window-byte window of each run
// of at least Window word bytes ([0-9A-Za-z_]) of the strings a query can
// find a value in: the line, the line with its \u escapes read (what a
// json or logfmt parser reads), its structured metadata values and its
// stream's label values. A string that holds a run of at least Window word
// bytes and is inside one of those holds that run inside one of its runs,
// so every window of the run is in the filter of the row's hour: an hour
// whose filter lacks one of them holds no such row. The filters have false
// positives (an hour read for nothing), never false negatives.
//
// An hour's filter is Buckets filters, one for the rows of the streams
// whose labels hash to each (BucketOf): a candidate hour also tells which
// buckets' streams can hold the string, so a search reads those streams
// alone. VictoriaLogs keeps a stream's rows in blocks of many hours, so
// reading an hour of every stream costs about as much as a day of a few.
//
// Rows are added before they are written (Writing), so an hour's filter
// never lacks a row the storage holds; a push that then fails leaves only
// false positives. Whether every row of a range went through this index
// (none stored by an earlier run, none lost to eviction) is for the caller
// to check with the stream index's Covers, and with Candidates' ok.
//
// Bounded: at most MaxBytes of filters across tenants; past it the oldest
// hours are dropped, and the part of a range reaching back to a dropped
// hour is searched whole.
package needles

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// Window is the length of the windows kept: a searched string narrows
// hours when it holds a run of at least this many word bytes (a 16-byte
// hex or 19-digit decimal id does; a dashed UUID's runs do not).
const Window = 16

const hourNs = int64(3600e9)

// Buckets is how many groups of streams an hour's filter keeps apart:
// a string found in one names a sixteenth of the streams.
const Buckets = 16

// AllBuckets is the mask of every bucket.
const AllBuckets = uint32(1)<<Buckets - 1

// BucketOf is the bucket of the stream with these labels (in any order).
func BucketOf(ls lokidata.Labels) int {
	if !slices.IsSortedFunc(ls, byName) {
		ls = slices.Clone(ls)
		ls.Sort()
	}
	return int(ls.Hash() % Buckets)
}

func byName(a, b lokidata.Label) int { return strings.Compare(a.Name, b.Name) }

// Part is a part of a range whose rows may hold a string, in the streams
// of the buckets set in Buckets.
type Part struct {
	Start, End int64 // Unix ns, inclusive
	Buckets    uint32
}

// Config bounds an index.
type Config struct {
	// MaxBytes bounds the filters kept across tenants.
	MaxBytes int
}

// Index is the needle index.
type Index struct {
	cfg     Config
	mu      sync.RWMutex
	tenants map[tenant.ID]*tenantHours
	bytes   int
}

// tenantHours are one tenant's hourly filters.
type tenantHours struct {
	hours map[int64]*hourFilter // by hour (Unix ns / hourNs)
	// dropped is the newest hour evicted: ranges reaching back to it are
	// not covered.
	dropped int64
	anyDrop bool
}

// New returns an empty index.
func New(cfg Config) *Index {
	return &Index{cfg: cfg, tenants: map[tenant.ID]*tenantHours{}}
}

// Writing adds the rows of a push about to be written: what a query's
// label filter can read a value from (the line, as stored and with JSON's
// \u escapes read, its structured metadata, its stream's labels).
func (ix *Index) Writing(t tenant.ID, streams []lokidata.Stream) {
	var hours []hourHashes // hashed before the lock is taken
	var hashes []uint64
	for _, s := range streams {
		bucket := BucketOf(s.Labels)
		labelsFrom := len(hashes)
		for _, l := range s.Labels {
			hashes = appendWindowHashes(hashes, l.Value)
		}
		labels := hourHashes{hour: math.MinInt64, bucket: bucket, from: labelsFrom, to: len(hashes)}
		for _, e := range s.Entries {
			hour := floorDiv(e.TimestampNs, hourNs)
			if n := len(hashes); appendEntryHashes(&hashes, e) {
				hours = append(hours, hourHashes{hour, bucket, n, len(hashes)})
			}
			if labels.to > labels.from && labels.hour != hour {
				labels.hour = hour // once an hour in a row of entries
				hours = append(hours, labels)
			}
		}
	}
	if len(hours) == 0 {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	th := ix.tenants[t]
	if th == nil {
		th = &tenantHours{hours: map[int64]*hourFilter{}}
		ix.tenants[t] = th
	}
	for _, hh := range hours {
		if th.anyDrop && hh.hour <= th.dropped {
			continue // not covered anyway
		}
		hf := th.hours[hh.hour]
		if hf == nil {
			hf = &hourFilter{}
			th.hours[hh.hour] = hf
		}
		f := &hf.buckets[hh.bucket]
		first := 0 // sized once a bucket's hour, not a row
		if len(f.segments) == 0 {
			first = th.firstBits(hh.hour, hh.bucket)
		}
		before := f.size()
		f.addAll(hashes[hh.from:hh.to], first)
		ix.bytes += f.size() - before
	}
	ix.evictLocked()
}

// hourFilter is an hour's filters, one a bucket of streams.
type hourFilter struct {
	buckets [Buckets]filter
}

func (hf *hourFilter) size() int {
	n := 0
	for i := range hf.buckets {
		n += hf.buckets[i].size()
	}
	return n
}

// holding is the mask of the buckets whose filter may hold every hash
// (none for a nil filter: an hour with no run of word bytes at all).
func (hf *hourFilter) holding(hashes []uint64) uint32 {
	if hf == nil {
		return 0
	}
	var mask uint32
	for i := range hf.buckets {
		if hf.buckets[i].hasAll(hashes) {
			mask |= 1 << i
		}
	}
	return mask
}

// firstBits sizes a bucket's first segment in an hour: for the windows
// the same bucket took the hour before and a sixteenth more (rows mostly
// come at a steady rate), so a busy bucket's hour is one segment, not
// many half-empty ones each looked in apart.
func (th *tenantHours) firstBits(hour int64, bucket int) int {
	prev := th.hours[hour-1]
	if prev == nil {
		return firstSegmentBits
	}
	return segmentBitsFor(prev.buckets[bucket].entries() * 17 / 16)
}

// appendEntryHashes appends the window hashes of an entry's line, of the
// line with its \u escapes read where it has one (a JSON or logfmt parser
// reads "\u0031" as "1"; the other escapes read as bytes outside words,
// so the stored line's runs hold the read line's), and of its structured
// metadata values. It reports whether it appended any.
func appendEntryHashes(hashes *[]uint64, e lokidata.Entry) bool {
	n := len(*hashes)
	*hashes = appendWindowHashes(*hashes, e.Line)
	if strings.Contains(e.Line, `\u`) {
		*hashes = appendWindowHashes(*hashes, readEscapes(e.Line))
	}
	for _, m := range e.StructuredMetadata {
		*hashes = appendWindowHashes(*hashes, m.Value)
	}
	return len(*hashes) > n
}

// hourHashes are one entry's window hashes (or its stream's labels'),
// hashes[from:to], and its hour: they go into one segment (addAll).
type hourHashes struct {
	hour     int64
	bucket   int
	from, to int
}

// Candidates returns the parts of [start, end] (Unix ns, inclusive) whose
// rows may hold s (in a line, a line's escapes read, a structured metadata
// value or a stream label value), oldest first: the hours whose filter
// holds every window of s in some bucket, with those buckets, and, whole
// and with every bucket, the part of the range reaching back to hours
// dropped at the bound. Adjacent hours are one part, with the buckets of
// either. ok is false when s holds no run of Window word bytes.
func (ix *Index) Candidates(t tenant.ID, s string, start, end int64) (parts []Part, ok bool) {
	hashes := appendWindowHashes(nil, s)
	if len(hashes) == 0 || start > end {
		return nil, false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	th := ix.tenants[t]
	first, last := floorDiv(start, hourNs), floorDiv(end, hourNs)
	if th != nil && th.anyDrop && first <= th.dropped {
		// The dropped hours are the oldest: searched whole.
		first = th.dropped + 1
		parts = append(parts, Part{start, min(end, first*hourNs-1), AllBuckets})
	}
	for h := first; th != nil && h <= last; h++ {
		mask := th.hours[h].holding(hashes)
		if mask == 0 {
			continue
		}
		lo, hi := max(start, h*hourNs), min(end, (h+1)*hourNs-1)
		if n := len(parts); n > 0 && parts[n-1].End+1 == lo {
			parts[n-1].End = hi
			parts[n-1].Buckets |= mask
		} else {
			parts = append(parts, Part{lo, hi, mask})
		}
	}
	return parts, true
}

// Bytes is the size of the filters kept.
func (ix *Index) Bytes() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.bytes
}

// evictLocked drops the oldest hours, across tenants, until the filters
// fit MaxBytes.
func (ix *Index) evictLocked() {
	for ix.bytes > ix.cfg.MaxBytes {
		var oldest *tenantHours
		var hour int64
		for _, th := range ix.tenants {
			for h := range th.hours {
				if oldest == nil || h < hour {
					oldest, hour = th, h
				}
			}
		}
		if oldest == nil {
			return
		}
		ix.bytes -= oldest.hours[hour].size()
		delete(oldest.hours, hour)
		if !oldest.anyDrop || hour > oldest.dropped {
			oldest.dropped, oldest.anyDrop = hour, true
		}
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
