package frontend

import (
	"container/heap"
	"context"
	"sort"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/engine"
	"github.com/vloki/vloki/internal/read/logs"
)

// lokiSplit is the interval Loki's query frontend splits log queries by.
const lokiSplit = int64(3600e9)

// The frontend answers a log query spanning several hours from one
// querier answer per hour, each limited to `limit` entries, and merges
// them with a heap ordered by timestamp alone. Which of several entries
// sharing the timestamp at the limit survive is decided by that heap's
// layout, so when the limit cuts through such a group vloki replays the
// merge; otherwise one querier answer over the whole range is the same.

// answerLogs answers a planned log query as Loki's frontend does.
func answerLogs(ctx context.Context, run *engine.LogRun) (*logs.Result, error) {
	a, err := answerWalked(ctx, run)
	if err != nil {
		return nil, err
	}
	return a.res, nil
}

// logAnswer is a log query's answer and, when one querier walk over the
// whole range gave it, that walk (nil after the frontend's merge).
type logAnswer struct {
	res    *logs.Result
	walked *logs.Walked
	// cut is the walk's CutsTie once asked.
	cut *bool
}

// tieFree reports that the answer's limit cut no timestamp: it holds
// every entry at its oldest (backward) timestamp.
func (a logAnswer) tieFree(ctx context.Context) (bool, error) {
	if a.walked == nil {
		return false, nil
	}
	if a.cut != nil {
		return !*a.cut, nil
	}
	cut, err := a.walked.CutsTie(ctx)
	return !cut, err
}

func answerWalked(ctx context.Context, run *engine.LogRun) (logAnswer, error) {
	req := run.Request()
	parts := logSplits(req.Start, req.End, req.Direction)
	if req.IntervalNs > 0 && len(parts) > 1 {
		// Each of Loki's hourly sub-queries applies the interval afresh.
		res, err := splitMerge(ctx, run)
		return logAnswer{res: res}, err
	}
	res, walked, err := run.Whole(ctx)
	if err != nil {
		return logAnswer{}, err
	}
	if len(parts) == 1 {
		accumulate(res.Streams, req.Direction)
		return logAnswer{res: res, walked: walked}, nil
	}
	cut, err := walked.CutsTie(ctx)
	if err != nil {
		return logAnswer{}, err
	}
	if cut || sharesTimestamps(res.Streams) {
		res, err := splitMerge(ctx, run)
		return logAnswer{res: res}, err
	}
	return logAnswer{res: res, walked: walked, cut: &cut}, nil
}

// accumulate reorders each stream of one querier answer as the frontend's
// stream accumulator does before the frontend reads it: Go's sort.Slice,
// twice (when the stream is added, when the result is taken), with a
// comparator that is not strict (a timestamp is "less" than an equal
// one). Entries of a stream sharing a timestamp, in arrival order in the
// querier's answer (schema.SeqField), are moved by it: deterministically,
// but as the sort's pivots fall (up to 12 entries, insertion sort
// reverses them twice, leaving them in place).
func accumulate(streams []lokidata.Stream, dir logs.Direction) {
	for _, s := range streams {
		e := s.Entries
		if !hasTies(e) {
			continue // distinct timestamps in order: any sort leaves them so
		}
		less := func(i, j int) bool { return e[i].TimestampNs <= e[j].TimestampNs }
		if dir == logs.Backward {
			less = func(i, j int) bool { return e[j].TimestampNs <= e[i].TimestampNs }
		}
		sort.Slice(e, less)
		sort.Slice(e, less)
	}
}

// sharesTimestamps reports a stream holding two entries of one timestamp:
// their order depends on how the frontend split the query.
func sharesTimestamps(streams []lokidata.Stream) bool {
	for _, s := range streams {
		if hasTies(s.Entries) {
			return true
		}
	}
	return false
}

// hasTies reports two neighbouring entries (entries are in direction
// order) with one timestamp.
func hasTies(e []lokidata.Entry) bool {
	for i := 1; i < len(e); i++ {
		if e[i].TimestampNs == e[i-1].TimestampNs {
			return true
		}
	}
	return false
}

// logSplits are Loki's intervals over [start, end): hour-aligned, the
// first starting at start, in the order the frontend reads them.
func logSplits(start, end int64, dir logs.Direction) [][2]int64 {
	var out [][2]int64
	for s := start - start%lokiSplit; s < end; s += lokiSplit {
		lo, hi := max(s, start), min(s+lokiSplit, end)
		out = append(out, [2]int64{lo, hi})
	}
	if dir == logs.Backward {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// splitMerge answers the query the way the frontend does: one answer
// per split until the limit is reached, then the heap merge.
func splitMerge(ctx context.Context, run *engine.LogRun) (*logs.Result, error) {
	req := run.Request()
	var parts []*logs.Result
	total := 0
	var stats logs.Stats
	for _, sp := range logSplits(req.Start, req.End, req.Direction) {
		res, err := run.Answer(ctx, sp[0], sp[1])
		if err != nil {
			return nil, err
		}
		accumulate(res.Streams, req.Direction)
		parts = append(parts, res)
		stats.LinesProcessed += res.Stats.LinesProcessed
		stats.BytesProcessed += res.Stats.BytesProcessed
		if total += res.Stats.EntriesReturned; total >= req.Limit {
			break
		}
	}
	out := &logs.Result{Streams: mergeSplits(parts, req.Limit, req.Direction), Stats: stats}
	for _, s := range out.Streams {
		out.Stats.EntriesReturned += len(s.Entries)
	}
	return out, nil
}

// mergeSplits groups the answers' entries by stream, in split order, and
// takes `limit` of them through a heap of streams ordered by their next
// entry's timestamp, as Loki's mergeOrderedNonOverlappingStreams does.
func mergeSplits(parts []*logs.Result, limit int, dir logs.Direction) []lokidata.Stream {
	groups := map[string]*lokidata.Stream{}
	total := 0
	for _, p := range parts {
		for _, s := range p.Streams {
			k := s.Labels.String()
			g := groups[k]
			if g == nil {
				g = &lokidata.Stream{Labels: s.Labels}
				groups[k] = g
			}
			g.Entries = append(g.Entries, s.Entries...)
			total += len(s.Entries)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if total <= limit {
		out := make([]lokidata.Stream, 0, len(keys))
		for _, k := range keys {
			out = append(out, *groups[k])
		}
		return out
	}
	h := &streamHeap{dir: dir}
	for _, k := range keys {
		if g := groups[k]; len(g.Entries) > 0 {
			h.streams = append(h.streams, &lokidata.Stream{Labels: g.Labels, Entries: g.Entries})
		}
	}
	heap.Init(h)
	taken := map[string]*lokidata.Stream{}
	for i := 0; i < limit && h.Len() > 0; i++ {
		next := heap.Pop(h).(*lokidata.Stream)
		k := next.Labels.String()
		s := taken[k]
		if s == nil {
			s = &lokidata.Stream{Labels: next.Labels}
			taken[k] = s
		}
		s.Entries = append(s.Entries, next.Entries...)
	}
	out := make([]lokidata.Stream, 0, len(taken))
	for _, k := range keys {
		if s := taken[k]; s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// streamHeap orders streams by their first entry's timestamp only; ties
// fall where container/heap leaves them, as in Loki.
type streamHeap struct {
	streams []*lokidata.Stream
	dir     logs.Direction
}

func (h *streamHeap) Len() int { return len(h.streams) }

func (h *streamHeap) Less(i, j int) bool {
	a, b := h.streams[i].Entries[0].TimestampNs, h.streams[j].Entries[0].TimestampNs
	if h.dir == logs.Forward {
		return a < b
	}
	return a > b
}

func (h *streamHeap) Swap(i, j int) { h.streams[i], h.streams[j] = h.streams[j], h.streams[i] }

func (h *streamHeap) Push(x any) { h.streams = append(h.streams, x.(*lokidata.Stream)) }

// Pop takes the stream heap.Pop moved last, pushes back the rest of its
// entries, and returns it with its first entry only.
func (h *streamHeap) Pop() any {
	n := len(h.streams)
	s := h.streams[n-1]
	h.streams[n-1] = nil
	h.streams = h.streams[:n-1]
	if len(s.Entries) > 1 {
		rest := *s
		rest.Entries = rest.Entries[1:]
		heap.Push(h, &rest)
	}
	s.Entries = s.Entries[:1]
	return s
}
