package frontend

import (
	"context"
	"strconv"
	"sync"
)

// Answers of metric range queries by their steps (issue 28). A refreshing
// panel in Grafana's shape asks the same steps (its start aligned to the
// step) with a later end, until the next step passes: the answer is the
// same, byte for byte, while no data at or before the last step changed.
// With vloki the sole writer, the ledger tells: a push acknowledged after
// the answer was read changed nothing it read when all its entries are
// later than the last step. The answer is stored in the results cache
// under its steps' key (loghttp.Identity.StepsKey) and the push number it
// was read after; the memo remembers, per steps' key, the number of the
// answer stored last.

// stepsMemoBytes bounds the memo's keys (it is emptied when full); the
// answers themselves count against the results cache's bound.
const stepsMemoBytes = 8 << 20

// stepsMemo maps a steps' key to the push number of its stored answer.
// An answer is stored the second time its steps are asked (askedSet):
// storing every answer of windows that move with each request (gzip,
// cache churn) halved their throughput.
type stepsMemo struct {
	mu    sync.Mutex
	seqs  map[string]uint64
	bytes int
	asked askedSet
}

// again reports whether key's steps were asked before, noting them.
func (m *stepsMemo) again(key string) bool {
	if _, ok := m.get(key); ok {
		return true
	}
	return m.asked.again(key)
}

func (m *stepsMemo) get(key string) (uint64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	seq, ok := m.seqs[key]
	return seq, ok
}

func (m *stepsMemo) put(key string, seq uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.seqs[key]; !ok {
		m.bytes += len(key) + 64
	}
	if m.seqs == nil || m.bytes > stepsMemoBytes {
		m.seqs, m.bytes = map[string]uint64{}, len(key)+64
	}
	m.seqs[key] = seq
}

// stepsKey is the key of req's answer by its steps, false when it has
// none or cannot be kept that way: no results cache or no ledger (vloki
// not the sole writer), an answer reading data a later request's would
// not (negative offsets), or rows the storage's retention may delete
// within a day (no push announces that).
func (f *Frontend) stepsKey(req *Request, st ReadState) (string, bool) {
	if f.cfg.Cache == nil || req.NoCache || req.StepsKey == "" || req.Uncacheable || !st.GenerationOK || !st.AckSeqOK ||
		f.cfg.Extents == nil || f.cfg.Extents.Acks == nil || f.nearRetention(req.ReadsFrom.UnixNano()) {
		return "", false
	}
	return tenantKey(req.Tenant) + ":" + strconv.FormatUint(st.Generation, 10) + "\x00" + req.Route + "\x00" + req.Path +
		"\x00steps" + req.StepsKey + "\x00boot:" + f.boot, true
}

// fromSteps is the answer kept under key when no push since it was read
// holds an entry at or before req's last step.
func (f *Frontend) fromSteps(ctx context.Context, req *Request, key string) (*answer, bool) {
	seq, ok := f.steps.get(key)
	if !ok {
		return nil, false
	}
	oldest, ok := f.cfg.Extents.Acks.OldestSince(req.Tenant, seq)
	if !ok || oldest <= req.LastStep.UnixNano() {
		return nil, false
	}
	return f.cfg.Cache.Get(ctx, stepsAnswerKey(key, seq))
}

// keepSteps stores a, read after push number seq, under key.
func (f *Frontend) keepSteps(ctx context.Context, key string, seq uint64, a *answer) bool {
	if !f.cfg.Cache.Set(ctx, stepsAnswerKey(key, seq), a) {
		return false
	}
	f.steps.put(key, seq)
	return true
}

func stepsAnswerKey(key string, seq uint64) string {
	return key + "\x00ack:" + strconv.FormatUint(seq, 10)
}
