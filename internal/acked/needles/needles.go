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
	hours map[int64]*filter // by hour (Unix ns / hourNs)
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
		labelsFrom := len(hashes)
		for _, l := range s.Labels {
			hashes = appendWindowHashes(hashes, l.Value)
		}
		labels := hourHashes{hour: math.MinInt64, from: labelsFrom, to: len(hashes)}
		for _, e := range s.Entries {
			hour := floorDiv(e.TimestampNs, hourNs)
			if n := len(hashes); appendEntryHashes(&hashes, e) {
				hours = append(hours, hourHashes{hour, n, len(hashes)})
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
		th = &tenantHours{hours: map[int64]*filter{}}
		ix.tenants[t] = th
	}
	for _, hh := range hours {
		if th.anyDrop && hh.hour <= th.dropped {
			continue // not covered anyway
		}
		f := th.hours[hh.hour]
		if f == nil {
			f = &filter{}
			th.hours[hh.hour] = f
		}
		before := f.size()
		f.addAll(hashes[hh.from:hh.to])
		ix.bytes += f.size() - before
	}
	ix.evictLocked()
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
	from, to int
}

// Candidates returns the parts of [start, end] (Unix ns, inclusive) whose
// rows may hold s (in a line, a line's escapes read, a structured metadata
// value or a stream label value), oldest first: the hours whose filter holds every window
// of s, and, whole, the part of the range reaching back to hours dropped at
// the bound. ok is false when s holds no run of Window word bytes.
func (ix *Index) Candidates(t tenant.ID, s string, start, end int64) (ranges [][2]int64, ok bool) {
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
		ranges = append(ranges, [2]int64{start, min(end, first*hourNs-1)})
	}
	for h := first; h <= last; h++ {
		if th == nil || !th.hours[h].hasAll(hashes) {
			continue
		}
		lo, hi := max(start, h*hourNs), min(end, (h+1)*hourNs-1)
		if n := len(ranges); n > 0 && ranges[n-1][1]+1 == lo {
			ranges[n-1][1] = hi
		} else {
			ranges = append(ranges, [2]int64{lo, hi})
		}
	}
	return ranges, true
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
