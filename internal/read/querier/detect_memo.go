package querier

import (
	"hash/maphash"
	"strings"
	"sync"

	"github.com/vloki/vloki/internal/lokidata"
	"github.com/vloki/vloki/internal/read/stages"
)

// detectMemoBytes bounds the fields kept of lines detected fields parsed:
// two generations of at most half of it each.
const detectMemoBytes = 16 << 20

// detectMemo keeps what stages.DetectFields read from recent lines (a pure
// function of the stream's labels and the line). A Drilldown service page
// asks detected fields and field values of the same newest lines on every
// refresh, and parsing them was the page's largest cost once the lines
// came from memory. When the newer generation holds half the bound, the
// older one is dropped.
type detectMemo struct {
	mu       sync.Mutex
	seed     maphash.Seed
	cur, old map[uint64]memoParse
	curBytes int64
	// hits and misses count lookups (tests read them).
	hits, misses int64
}

// memoParse is one line's parse with what it was parsed from (a hash
// may collide).
type memoParse struct {
	stream, line string
	parse        stages.DetectedParse
	bytes        int64
}

func newDetectMemo() *detectMemo {
	return &detectMemo{seed: maphash.MakeSeed(), cur: map[uint64]memoParse{}}
}

// parse is stages.DetectFields(stream, line); streamKey is stream's
// String().
func (m *detectMemo) parse(streamKey string, stream lokidata.Labels, line string) stages.DetectedParse {
	var h maphash.Hash
	h.SetSeed(m.seed)
	h.WriteString(streamKey)
	h.WriteByte(0xff)
	h.WriteString(line)
	sum := h.Sum64()
	m.mu.Lock()
	e, ok := m.cur[sum]
	if !ok {
		if e, ok = m.old[sum]; ok && e.stream == streamKey && e.line == line {
			m.putLocked(sum, e)
		}
	}
	ok = ok && e.stream == streamKey && e.line == line
	if ok {
		m.hits++
	} else {
		m.misses++
	}
	m.mu.Unlock()
	if ok {
		return e.parse
	}
	p := stages.DetectFields(stream, line)
	e = memoParse{stream: strings.Clone(streamKey), line: strings.Clone(line), parse: p, bytes: parseBytes(streamKey, line, p)}
	m.mu.Lock()
	m.putLocked(sum, e)
	m.mu.Unlock()
	return p
}

func (m *detectMemo) putLocked(sum uint64, e memoParse) {
	if m.curBytes+e.bytes > detectMemoBytes/2 {
		m.old, m.cur, m.curBytes = m.cur, map[uint64]memoParse{}, 0
	}
	if was, ok := m.cur[sum]; ok {
		m.curBytes -= was.bytes
	}
	m.curBytes += e.bytes
	m.cur[sum] = e
}

// parseBytes estimates an entry's memory: its strings, the fields and
// their JSON paths, and the map's own costs.
func parseBytes(streamKey, line string, p stages.DetectedParse) int64 {
	n := int64(128 + len(streamKey) + len(line))
	for _, l := range p.Fields {
		n += 32 + int64(len(l.Name)+len(l.Value))
	}
	for name, path := range p.Paths {
		n += 48 + int64(len(name))
		for _, s := range path {
			n += 16 + int64(len(s))
		}
	}
	return n
}
