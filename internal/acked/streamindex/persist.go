package streamindex

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// saved is the file a clean shutdown writes: what the index knew, for a
// restart to come back with every tenant's streams and horizon.
type saved struct {
	Tenants []savedTenant `json:"tenants"`
	// Generation tells this save from any other: what is saved beside
	// the index at the same shutdown (the needle index) carries it too.
	Generation int64 `json:"generation,omitempty"`
}

type savedTenant struct {
	AccountID uint32        `json:"account_id"`
	ProjectID uint32        `json:"project_id"`
	Horizon   *int64        `json:"horizon,omitempty"`
	Full      bool          `json:"full,omitempty"`
	Streams   []savedStream `json:"streams"`
	// Days are the day units' bounds (LabelRule).
	Days []savedDay `json:"days,omitempty"`
	// Marks are the streams' kinds of lines (linekinds.go); MarksSaved
	// tells a file that has them (possibly none) from an older vloki's.
	Marks      []savedMarks `json:"marks,omitempty"`
	MarksSaved bool         `json:"marks_saved,omitempty"`
}

type savedMarks struct {
	Labels lokidata.Labels    `json:"labels"`
	Kinds  lokidata.LineKinds `json:"kinds"`
	Spans  [kindCount]span    `json:"spans"`
}

type savedStream struct {
	Labels   lokidata.Labels `json:"labels"`
	Min, Max int64
	// LastPush, Open and Flushed are the stream's chunks; Days the day
	// units it is in (LabelRule). A file without them (an older vloki)
	// puts the stream's [Min, Max] in its day units.
	LastPush int64   `json:"last_push,omitempty"`
	Open     *span   `json:"open,omitempty"`
	Flushed  []chunk `json:"flushed,omitempty"`
	Days     []int64 `json:"days,omitempty"`
}

type savedDay struct {
	Day int64 `json:"day"`
	span
}

// Save writes the index to path, tagged with generation. Only a clean
// shutdown may call it, once the storage has every acknowledged row and
// takes no more: the file then describes the storage exactly.
func (ix *Index) Save(path string, generation int64) error {
	ix.mu.RLock()
	s := saved{Generation: generation}
	for t, tn := range ix.tenants {
		st := savedTenant{AccountID: t.AccountID, ProjectID: t.ProjectID, Full: tn.full}
		if tn.known {
			h := tn.horizon
			st.Horizon = &h
		}
		st.Streams, st.Days = savedStreams(tn)
		st.Marks, st.MarksSaved = savedMarksOf(tn), tn.marksFrom == math.MinInt64
		s.Tenants = append(s.Tenants, st)
	}
	ix.mu.RUnlock()
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Load restores what Save wrote and removes the file, so that a later
// crash (after which the storage may hold rows the index does not) never
// restores it. It returns the save's generation (0 when nothing was
// restored). A missing file leaves the index empty.
func (ix *Index) Load(path string) (generation int64, err error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if err := os.Remove(path); err != nil {
		return 0, err
	}
	var s saved
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, nil // a damaged file: start empty, horizons read afresh
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, st := range s.Tenants {
		tn := ix.tenantLocked(tenant.ID{AccountID: st.AccountID, ProjectID: st.ProjectID})
		tn.full = st.Full
		if st.Horizon != nil {
			tn.horizon, tn.known = *st.Horizon, true
		}
		// Line lengths are not saved: entries up to the newest restored
		// are not in the streams' lines.
		tn.restored = tn.horizon
		for _, x := range st.Streams {
			tn.restored = max(tn.restored, x.Max)
		}
		for _, d := range st.Days {
			tn.days[d.Day] = d.span
		}
		for _, x := range st.Streams {
			if ix.streams >= ix.cfg.MaxStreams {
				tn.full = true
				break
			}
			tn.addStream(x.Labels.String(), restoredStream(tn, x))
			ix.streams++
		}
		tn.linesFrom = tn.restored + 1
		ix.restoreMarks(tn, st)
	}
	return s.Generation, nil
}

// savedMarksOf are the tenant's marks as saved.
func savedMarksOf(tn *tenantIndex) []savedMarks {
	var out []savedMarks
	for _, m := range tn.marks {
		out = append(out, savedMarks{Labels: m.labels, Kinds: m.kinds, Spans: m.spans})
	}
	return out
}

// restoreMarks puts back the saved marks; without them (an older file,
// or marks the tenant's earlier run did not have whole), the kinds of the
// restored rows are unknown.
func (ix *Index) restoreMarks(tn *tenantIndex, st savedTenant) {
	if !st.MarksSaved {
		tn.marksFrom = tn.restored + 1
		return
	}
	for _, x := range st.Marks {
		if ix.marked >= ix.cfg.MaxStreams {
			tn.full = true
			return
		}
		if tn.marks == nil {
			tn.marks = map[string]*marks{}
		}
		tn.marks[x.Labels.String()] = &marks{labels: x.Labels, kinds: x.Kinds, spans: x.Spans}
		ix.marked++
	}
}

// savedStreams are the tenant's streams and day units as saved.
func savedStreams(tn *tenantIndex) ([]savedStream, []savedDay) {
	var days []savedDay
	for d, b := range tn.days {
		days = append(days, savedDay{Day: d, span: b})
	}
	var out []savedStream
	for _, x := range tn.streams {
		s := savedStream{Labels: x.labels, Min: x.min, Max: x.max, LastPush: x.lastPush, Flushed: x.flushed, Days: x.dayList()}
		if x.lastPush != 0 {
			open := x.open
			s.Open = &open
		}
		out = append(out, s)
	}
	return out, days
}

// restoredStream rebuilds a saved stream and puts it in its day units.
func restoredStream(tn *tenantIndex, x savedStream) *stream {
	st := &stream{labels: x.Labels, min: x.Min, max: x.Max, lastPush: x.LastPush, flushed: x.Flushed}
	if x.Open != nil {
		st.open = *x.Open
	}
	if x.LastPush == 0 && len(x.Flushed) == 0 && len(x.Days) == 0 {
		tn.addToDays(st, span{x.Min, x.Max}) // saved by a vloki without the rule
	}
	for _, d := range x.Days {
		if _, ok := tn.days[d]; ok {
			st.addDays(d, d)
		}
	}
	return st
}

// dayList lists the days of the stream's runs, as saved.
func (st *stream) dayList() []int64 {
	var out []int64
	for _, r := range st.days {
		for d := r.First; d <= r.Last; d++ {
			out = append(out, d)
		}
	}
	return out
}

// Restored returns, for every tenant the index holds, the newest time of
// the rows restored from a saved index (math.MinInt64 for none): rows up
// to it were not pushed through this process.
func (ix *Index) Restored() map[tenant.ID]int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make(map[tenant.ID]int64, len(ix.tenants))
	for t, tn := range ix.tenants {
		out[t] = tn.restored
	}
	return out
}
