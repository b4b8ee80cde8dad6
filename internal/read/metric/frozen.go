package metric

import (
	"context"
	"errors"
	"strconv"

	"github.com/vloki/vloki/internal/lang/logsql"
	"github.com/vloki/vloki/internal/read/plan"
	"github.com/vloki/vloki/internal/read/samples"
)

// Frozen is what the frontend decided can no longer change for one
// request, and where range aggregations keep the samples they extract from
// it (samples.Store), so that later requests at any grid read only the
// rest from storage.
type Frozen struct {
	Store *samples.Store
	// Prefix names the tenant and its cache generation (a push of old
	// entries or a delete request moves it on) in the store's keys.
	Prefix string
	// Before: samples with earlier timestamps are frozen now (now minus
	// the freshness window; now when vloki is the only writer).
	Before int64
	// Seq is the tenant's last acknowledged push the request reads after
	// (vloki the only writer): the entries it stores carry it.
	Seq uint64
	// ValidBefore, when set (vloki the only writer), is the timestamp from
	// which a push acknowledged after seq may have changed an entry read
	// after seq; entries are used only before it.
	ValidBefore func(seq uint64) int64
}

// An input's entry spans at most spanReach of its request's spans on
// either side of the last one: a moving window keeps what it will read
// again, not all it ever read.
const spanReach = 2

// frozenSeries returns m's series for the request's span with the samples
// of frozen data taken from the store, reading only the rest from
// storage; ok is false when the store does not apply (no store, sparse
// windows, unknown input), holds too little of the span, the input was
// not evaluated before at another grid (the first evaluation of an input
// reads its rows as before), or another request is filling it. A query
// over the memory budget is answered as without the store. Inputs read as
// rows are fetched as rows (fetchSeries); sums VictoriaLogs' buckets answer
// (SumOfRange) as counts per exact timestamp and group (timeStats), a row
// per timestamp instead of the lines: filling them from rows cost too much
// (an earlier version: compute over shifted windows fell from 96 to 3
// req/s).
func (ev *evaluator) frozenSeries(ctx context.Context, m *plan.RangeAgg, fetch seriesFetch) ([]*rangeSeries, bool, error) {
	f := ev.req.Frozen
	if f == nil || f.Store == nil || ev.req.Step <= 0 || len(ev.steps) == 0 || m.Range <= 0 || m.Log.Foreign != nil ||
		ev.readBatches(m, sparseRowsRatio) != nil {
		return nil, false, nil
	}
	input := m.SamplesKey()
	if input == "" {
		return nil, false, nil
	}
	key := f.Prefix + "\x00" + input
	if f.Store.Refused(key) {
		return nil, false, nil
	}
	sp := ev.span(m)
	lo, hi := sp.lo, sp.hi+1
	valid := f.valid(key)
	var used *samples.Entry
	if valid != nil && valid.Lo < hi && valid.Hi > lo {
		used = valid.Cut(lo, hi)
	}
	grid := strconv.FormatInt(ev.req.Step, 10) + "," + strconv.FormatInt(ev.steps[0], 10) + "," +
		strconv.Itoa(len(ev.steps)) + "," + strconv.FormatInt(m.Range, 10) + "," + strconv.FormatInt(m.Offset, 10)
	again := f.Store.Seen(key, grid)
	mostlyKept := used != nil && 2*(used.Hi-used.Lo) >= hi-lo
	mostlyFrozen := lo+(hi-lo)/2 < f.Before
	if !mostlyKept && !(again && mostlyFrozen) {
		return nil, false, nil
	}
	if !mostlyKept {
		// A fill reads most of the span as rows: one request at a time.
		release, ok := f.Store.Claim(key)
		if !ok {
			return nil, false, nil
		}
		defer release()
	}
	held := ev.mem.used
	series, read, err := ev.joinFrozen(ctx, m, fetch, used, lo, hi)
	var limit *LimitError
	switch {
	case errors.Is(err, errTooManySamples):
		f.Store.Refuse(key) // cheaper from the storage's buckets
		ev.mem.used = held
		return nil, false, nil
	case errors.As(err, &limit):
		ev.mem.used = held
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	if used != nil {
		f.Store.Hit()
	}
	if read {
		f.keep(key, valid, series, lo, hi)
	}
	return series, true, nil
}

// errTooManySamples stops a fetch whose input holds more samples than
// are worth keeping (timeStats).
var errTooManySamples = errors.New("more samples than the store keeps for this input")

// seriesFetch reads an input's series over time filters: its rows
// (fetchSeries), or counts per exact timestamp (timeStats).
type seriesFetch func(ctx context.Context, m *plan.RangeAgg, times []logsql.Filter) ([]*rangeSeries, error)

// valid is the entry under key, cut where a later push may have changed
// it; nil when none is left.
func (f *Frozen) valid(key string) *samples.Entry {
	e, ok := f.Store.Get(key)
	if !ok {
		return nil
	}
	if f.ValidBefore != nil {
		if cut := f.ValidBefore(e.Seq); cut < e.Hi {
			e = e.Cut(e.Lo, cut)
		}
	}
	if e.Hi <= e.Lo {
		return nil
	}
	return e
}

// joinFrozen reads m's samples in [lo, hi) outside used's interval from
// storage and joins them with used's, per series in time order: the parts
// cover disjoint time ranges, so concatenation keeps the rows path's
// order. read reports that storage was read.
func (ev *evaluator) joinFrozen(ctx context.Context, m *plan.RangeAgg, fetch seriesFetch, used *samples.Entry, lo, hi int64) (out []*rangeSeries, read bool, err error) {
	ulo, uhi := hi, hi // nothing kept: read it all
	if used != nil {
		ulo, uhi = used.Lo, used.Hi
	}
	var times []logsql.Filter
	if lo < ulo && !ev.noEntriesIn(ctx, m, lo, ulo-1) {
		times = append(times, window{lo, ulo - 1}.filter())
	}
	if uhi < hi && !ev.noEntriesIn(ctx, m, uhi, hi-1) {
		times = append(times, window{uhi, hi - 1}.filter())
	}
	fetched, err := fetch(ctx, m, times)
	if err != nil || used == nil {
		return fetched, len(times) > 0, err
	}
	index := make(map[string]*rangeSeries, len(fetched))
	for _, s := range fetched {
		index[s.labels.String()] = s
	}
	for _, k := range used.Series {
		key := k.Labels.String()
		if err := ev.mem.take(int64(len(k.TS)) * sampleBytes); err != nil {
			return nil, false, err
		}
		s, ok := index[key]
		if !ok {
			if err := ev.mem.take(labelsBytes(k.Labels) + int64(len(key))); err != nil {
				return nil, false, err
			}
			s = &rangeSeries{labels: k.Labels, ts: k.TS, vals: k.Vals}
			index[key] = s
			fetched = append(fetched, s)
			continue
		}
		s.ts, s.vals = spliced(s.ts, s.vals, k.TS, k.Vals, ulo)
	}
	return fetched, len(times) > 0, nil
}

// noEntriesIn reports that the stream index holds every entry of m's
// streams in [lo, hi] and there is none: a refresh with no push since
// the last one reads nothing from storage.
func (ev *evaluator) noEntriesIn(ctx context.Context, m *plan.RangeAgg, lo, hi int64) bool {
	return ev.req.Indexed != nil && NoEntries(ctx, ev.req.Indexed, ev.t, m.Log.Selector, lo, hi)
}

// spliced inserts the kept samples (ts, vals) into a series read around
// them: before at first samples older than at, after them the rest.
func spliced(ts []int64, vals []float64, kts []int64, kvals []float64, at int64) ([]int64, []float64) {
	i := 0
	for i < len(ts) && ts[i] < at {
		i++
	}
	outTS := make([]int64, 0, len(ts)+len(kts))
	outVals := make([]float64, 0, len(ts)+len(kts))
	outTS = append(append(append(outTS, ts[:i]...), kts...), ts[i:]...)
	outVals = append(append(append(outVals, vals[:i]...), kvals...), vals[i:]...)
	return outTS, outVals
}

// keep stores the span's frozen samples joined with what the valid entry
// holds on either side of it when the two meet, within spanReach spans.
func (f *Frozen) keep(key string, valid *samples.Entry, series []*rangeSeries, lo, hi int64) {
	span := &samples.Entry{Lo: lo, Hi: hi, Seq: f.Seq}
	for _, s := range series {
		span.Series = append(span.Series, samples.Series{Labels: s.labels, TS: s.ts, Vals: s.vals})
	}
	e := span
	if valid != nil && valid.Lo <= hi && valid.Hi >= lo {
		reach := spanReach * (hi - lo)
		parts := []*samples.Entry{span}
		if valid.Lo < lo {
			parts = append([]*samples.Entry{valid.Cut(lo-reach, lo)}, parts...)
		}
		if valid.Hi > hi {
			parts = append(parts, valid.Cut(hi, hi+reach))
		}
		e = joinEntries(f.Seq, parts)
	}
	e = e.Cut(e.Lo, f.Before)
	if e.Hi <= e.Lo {
		return
	}
	if !f.Store.Put(key, e) && e != span {
		if span = span.Cut(lo, f.Before); span.Hi > span.Lo {
			f.Store.Put(key, span)
		}
	}
}

// joinEntries joins entries over adjacent intervals, in time order, into
// one read after seq (series by label set, samples concatenated).
func joinEntries(seq uint64, parts []*samples.Entry) *samples.Entry {
	out := &samples.Entry{Lo: parts[0].Lo, Hi: parts[len(parts)-1].Hi, Seq: seq}
	index := map[string]int{}
	for _, p := range parts {
		for _, s := range p.Series {
			key := s.Labels.String()
			i, ok := index[key]
			if !ok {
				i = len(out.Series)
				index[key] = i
				out.Series = append(out.Series, samples.Series{Labels: s.Labels})
			}
			o := &out.Series[i]
			o.TS = append(o.TS, s.TS...)
			o.Vals = append(o.Vals, s.Vals...)
		}
	}
	return out
}
