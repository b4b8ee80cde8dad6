package samples

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// DefaultMaxBytes is the store's default bound
// (-frontend.samples-cache-size).
const DefaultMaxBytes = 64 << 20

// maxEntryShare: one entry may take at most 1/maxEntryShare of the store;
// a larger input keeps being evaluated as before (buckets or rows).
const maxEntryShare = 8

// seenLimit bounds the inputs Seen remembers; the set starts over when
// full (a forgotten input is only filled one request later).
const seenLimit = 4096

// Store keeps entries by key, least recently used first out, bounded by
// the bytes they hold (Entry.Bytes plus the key). It also remembers which
// inputs were evaluated and at which grid (Seen). Safe for concurrent use.
type Store struct {
	max int64

	mu    sync.Mutex
	used  int64
	order *list.List // front: most recently used
	items map[string]*list.Element
	seen  map[string]string
	// filling are the inputs whose whole span a request is reading for
	// the store now (Claim).
	filling map[string]bool
	// refused are inputs not to fill again: their entry exceeded
	// MaxEntryBytes, or their evaluation found them cheaper elsewhere
	// (their span would be read for nothing).
	refused map[string]bool

	hits, fills, evictions atomic.Uint64
}

type item struct {
	key   string
	e     *Entry
	bytes int64
}

// NewStore returns a store holding at most maxBytes.
func NewStore(maxBytes int64) *Store {
	return &Store{max: maxBytes, order: list.New(), items: map[string]*list.Element{}, seen: map[string]string{},
		filling: map[string]bool{}, refused: map[string]bool{}}
}

// MaxEntryBytes is the most one entry (with its key) may take.
func (s *Store) MaxEntryBytes() int64 { return s.max / maxEntryShare }

// Get returns the entry kept under key.
func (s *Store) Get(key string) (*Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.items[key]
	if !ok {
		return nil, false
	}
	s.order.MoveToFront(el)
	return el.Value.(*item).e, true
}

// Put keeps e under key, replacing what was there, and evicts the least
// recently used entries beyond the bound; false when e is too large to
// keep (what was under key then stays).
func (s *Store) Put(key string, e *Entry) bool {
	n := int64(len(key)) + e.Bytes()
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > s.MaxEntryBytes() {
		s.refuseLocked(key)
		return false
	}
	if el, ok := s.items[key]; ok {
		s.remove(el)
	}
	s.items[key] = s.order.PushFront(&item{key: key, e: e, bytes: n})
	s.used += n
	for s.used > s.max {
		s.remove(s.order.Back())
		s.evictions.Add(1)
	}
	s.fills.Add(1)
	return true
}

func (s *Store) remove(el *list.Element) {
	it := el.Value.(*item)
	s.order.Remove(el)
	delete(s.items, it.key)
	s.used -= it.bytes
}

// Seen records that the input under key is evaluated at grid and reports
// whether it was evaluated before at another grid.
func (s *Store) Seen(key, grid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	before, ok := s.seen[key]
	if !ok && len(s.seen) >= seenLimit {
		clear(s.seen)
	}
	s.seen[key] = grid
	return ok && before != grid
}

// Refuse marks an input not to be filled again (too large to be worth
// keeping), dropping what is kept under it.
func (s *Store) Refuse(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.items[key]; ok {
		s.remove(el)
	}
	s.refuseLocked(key)
}

func (s *Store) refuseLocked(key string) {
	if len(s.refused) >= seenLimit {
		clear(s.refused)
	}
	s.refused[key] = true
}

// Refused reports an input not to fill again (Put found it too large, or
// Refuse was called; the set starts over past seenLimit inputs, as
// Seen's).
func (s *Store) Refused(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused[key]
}

// Claim lets one request at a time read an input's span for the store:
// ok is false while another holds the claim (that request answers as
// without the store rather than read the same rows again); release ends
// the claim.
func (s *Store) Claim(key string) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.filling[key] {
		return nil, false
	}
	s.filling[key] = true
	return func() {
		s.mu.Lock()
		delete(s.filling, key)
		s.mu.Unlock()
	}, true
}

// Hit counts an evaluation that took samples from the store.
func (s *Store) Hit() { s.hits.Add(1) }

// Usage reports the bytes held, the entries, the evaluations that took
// samples from the store, the entries stored and the evictions so far.
func (s *Store) Usage() (bytes int64, entries int, hits, fills, evictions uint64) {
	s.mu.Lock()
	bytes, entries = s.used, len(s.items)
	s.mu.Unlock()
	return bytes, entries, s.hits.Load(), s.fills.Load(), s.evictions.Load()
}
