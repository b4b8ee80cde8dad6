package frontend

import (
	"math"
	"strconv"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/read/metric"
	"github.com/vloki/vloki/internal/read/samples"
)

// FrozenSamples decides, per request, what data can no longer change and
// hands it to the evaluator with the store of samples extracted from it
// (metric.Frozen): range aggregations over moving windows then read only
// what is not frozen from storage, at any grid.
type FrozenSamples struct {
	Store *samples.Store
	// Freshness: without Acks, only samples older than now minus this are
	// frozen (Loki's max_cache_freshness_per_query); a push of older
	// entries through vloki moves the tenant's generation on.
	Freshness time.Duration
	Now       func() time.Time
	// Acks, when set (vloki the only writer), freezes everything up to
	// now: each push after the one an entry was read after cuts it at its
	// oldest entry.
	Acks AckLog
}

// For is what is frozen for a request of tenant t, which the frontend
// read st for; nil when nothing may be kept (no generation, or no push
// number with Acks).
func (s *FrozenSamples) For(t tenant.ID, st ReadState) *metric.Frozen {
	if s == nil || !st.GenerationOK {
		return nil
	}
	f := &metric.Frozen{Store: s.Store, Before: s.Now().Add(-s.Freshness).UnixNano(),
		Prefix: strconv.FormatUint(uint64(t.AccountID), 10) + ":" + strconv.FormatUint(uint64(t.ProjectID), 10) +
			"|" + strconv.FormatUint(st.Generation, 10)}
	if s.Acks != nil {
		if !st.AckSeqOK {
			return nil
		}
		acks := s.Acks
		f.Before, f.Seq = s.Now().UnixNano(), st.AckSeq
		f.ValidBefore = func(seq uint64) int64 {
			oldest, ok := acks.OldestSince(t, seq)
			if !ok {
				return math.MinInt64
			}
			return oldest
		}
	}
	return f
}
