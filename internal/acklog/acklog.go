// Package acklog remembers, per tenant and in order, the oldest entry
// timestamp of every push vloki acknowledged (or that failed once sent,
// which may have left rows behind): what an answer computed before some
// push may have missed. When vloki is the only writer, an answer computed
// at sequence s is still exact for every time before OldestSince(s).
//
// Bounded: a tenant keeps its last Keep pushes; asking about a sequence
// older than that answers "unknown" (the caller assumes the worst).
package acklog

import (
	"math"
	"sync"

	"github.com/vloki/vloki/internal/backend"
	"github.com/vloki/vloki/internal/model"
)

// Keep is how many pushes a tenant's log holds (8 bytes each).
const Keep = 1 << 14

// Log is the per-tenant push log.
type Log struct {
	mu      sync.Mutex
	tenants map[backend.Tenant]*tenantLog
}

type tenantLog struct {
	// oldest[i] is the oldest timestamp of push number first+i+1.
	oldest []int64
	first  uint64
}

func (tl *tenantLog) seq() uint64 { return tl.first + uint64(len(tl.oldest)) }

// New returns an empty log.
func New() *Log { return &Log{tenants: map[backend.Tenant]*tenantLog{}} }

// Acked records an acknowledged push.
func (l *Log) Acked(t backend.Tenant, streams []model.Stream) {
	oldest := int64(math.MaxInt64)
	for _, s := range streams {
		for _, e := range s.Entries {
			oldest = min(oldest, e.TimestampNs)
		}
	}
	l.record(t, oldest)
}

// Failed records a push that failed once sent: it may have left rows of
// any time behind.
func (l *Log) Failed(t backend.Tenant) { l.record(t, math.MinInt64) }

func (l *Log) record(t backend.Tenant, oldest int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tl := l.tenants[t]
	if tl == nil {
		tl = &tenantLog{}
		l.tenants[t] = tl
	}
	tl.oldest = append(tl.oldest, oldest)
	if len(tl.oldest) >= 2*Keep {
		drop := len(tl.oldest) - Keep
		tl.oldest = append(tl.oldest[:0:0], tl.oldest[drop:]...)
		tl.first += uint64(drop)
	}
}

// Seq is the number of the tenant's last recorded push.
func (l *Log) Seq(t backend.Tenant) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if tl := l.tenants[t]; tl != nil {
		return tl.seq()
	}
	return 0
}

// OldestSince is the oldest entry timestamp of the pushes recorded after
// push number seq (math.MaxInt64 when none); ok is false when the log no
// longer holds them all.
func (l *Log) OldestSince(t backend.Tenant, seq uint64) (oldest int64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tl := l.tenants[t]
	if tl == nil {
		return math.MaxInt64, seq == 0
	}
	if seq < tl.first || seq > tl.seq() {
		return 0, false
	}
	oldest = math.MaxInt64
	for _, ts := range tl.oldest[seq-tl.first:] {
		oldest = min(oldest, ts)
	}
	return oldest, true
}
