package frontend

import (
	"hash/maphash"
	"sync"
)

// askedMax bounds the key hashes an askedSet holds (16 bytes each); the
// set is emptied when full.
const askedMax = 1 << 16

// askedSet tells whether a key was asked before: an answer is cached (by
// its request or by its steps) the second time it is asked, since windows
// that move with every request (ms precision, not Grafana's alignment)
// never ask the same twice, and keeping each answer cost their throughput
// and filled the cache's bound with answers never read.
// The zero value is ready.
type askedSet struct {
	mu   sync.Mutex
	seen map[uint64]struct{}
	seed maphash.Seed
}

// again reports whether key was asked before, noting it.
func (s *askedSet) again(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil || len(s.seen) >= askedMax {
		s.seen, s.seed = map[uint64]struct{}{}, maphash.MakeSeed()
	}
	h := maphash.String(s.seed, key)
	_, ok := s.seen[h]
	s.seen[h] = struct{}{}
	return ok
}
