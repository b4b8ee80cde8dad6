package needles

import (
	"bufio"
	"encoding/gob"
	"errors"
	"io/fs"
	"os"

	"github.com/vloki/vloki/internal/edge/tenant"
)

// saved is the file a clean shutdown writes. Generation ties it to the
// stream index saved at the same shutdown: the filters describe the
// storage only together with the index that says which rows this chain of
// processes wrote. Format is formatVersion: a file of another layout
// is not read as this one.
type saved struct {
	Format     int
	Generation int64
	Tenants    []savedTenant
}

// formatVersion is the layout Save writes: 2, filters by bucket of
// streams (1, before it, had none).
const formatVersion = 2

type savedTenant struct {
	AccountID, ProjectID uint32
	// Since is the caller's: every row of the tenant after it went
	// through the index.
	Since   int64
	Dropped int64
	AnyDrop bool
	Hours   []savedHour
}

type savedHour struct {
	Hour int64
	// Buckets are the segments of each bucket's filter.
	Buckets [Buckets][]savedSegment
}

type savedSegment struct {
	Bits    []uint64
	Entries int
}

// Save writes the filters of the tenants in since to path, tagged with
// generation, each with the time after which every row of the tenant went
// through the index. Only a clean shutdown may call it, once no more rows
// are written.
func (ix *Index) Save(path string, generation int64, since map[tenant.ID]int64) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	ix.mu.RLock()
	err = gob.NewEncoder(w).Encode(ix.savedLocked(generation, since))
	ix.mu.RUnlock()
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

func (ix *Index) savedLocked(generation int64, since map[tenant.ID]int64) saved {
	s := saved{Format: formatVersion, Generation: generation}
	for t, after := range since {
		st := savedTenant{AccountID: t.AccountID, ProjectID: t.ProjectID, Since: after}
		th := ix.tenants[t]
		if th == nil {
			s.Tenants = append(s.Tenants, st) // no row with a long word
			continue
		}
		st.Dropped, st.AnyDrop = th.dropped, th.anyDrop
		for h, hf := range th.hours {
			sh := savedHour{Hour: h}
			for b := range hf.buckets {
				for _, seg := range hf.buckets[b].segments {
					sh.Buckets[b] = append(sh.Buckets[b], savedSegment{Bits: seg.bits, Entries: seg.entries})
				}
			}
			st.Hours = append(st.Hours, sh)
		}
		s.Tenants = append(s.Tenants, st)
	}
	return s
}

// whole reports whether every segment has bits (a damaged file may not).
func (s *saved) whole() bool {
	for _, st := range s.Tenants {
		for _, sh := range st.Hours {
			for _, segs := range sh.Buckets {
				for _, seg := range segs {
					if len(seg.Bits) == 0 {
						return false
					}
				}
			}
		}
	}
	return true
}

// Load restores what Save wrote when it was tagged with generation (not
// 0), and removes the file either way, so that a crash after this start
// never restores filters lacking its rows. It returns the restored
// tenants' since; a missing, damaged or other generation's file leaves
// the index empty.
func (ix *Index) Load(path string, generation int64) (map[tenant.ID]int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s saved
	decodeErr := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&s)
	f.Close()
	if err := os.Remove(path); err != nil {
		return nil, err
	}
	if decodeErr != nil || s.Format != formatVersion || generation == 0 || s.Generation != generation || !s.whole() {
		return nil, nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	since := map[tenant.ID]int64{}
	for _, st := range s.Tenants {
		th := &tenantHours{hours: map[int64]*hourFilter{}, dropped: st.Dropped, anyDrop: st.AnyDrop}
		for _, sh := range st.Hours {
			hf := &hourFilter{}
			for b, segs := range sh.Buckets {
				f := &hf.buckets[b]
				for _, seg := range segs {
					f.segments = append(f.segments, &segment{bits: seg.Bits, entries: seg.Entries})
					f.bytes += 8 * len(seg.Bits)
				}
			}
			th.hours[sh.Hour] = hf
			ix.bytes += hf.size()
		}
		t := tenant.ID{AccountID: st.AccountID, ProjectID: st.ProjectID}
		ix.tenants[t], since[t] = th, st.Since
	}
	ix.evictLocked() // the bound may have shrunk since
	return since, nil
}
