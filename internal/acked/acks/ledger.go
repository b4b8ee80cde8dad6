// Package acks is the ledger of the pushes this vloki wrote to
// VictoriaLogs: the one place the writer (ingest.Writer) reports every
// push to — about to be written, acknowledged, failed once sent — and the
// one place every reader that depends on pushes learns of them.
//
// Per tenant it holds the last acknowledgement (its order among every
// tenant's and when it came), the number of the last push, and the oldest
// entry timestamp of each of the last pushes. It is read by:
//
//   - the read-your-writes wait (visibility): the tenant's last
//     acknowledgement, and how many there were in all, which a flush
//     covers;
//   - the frontend: the tenant's last push number (answers cached until
//     the next push, steps kept with the number they were computed at) and
//     when its last push was acknowledged (a request never joins an
//     execution older than that);
//   - the frontend's extents: the oldest entry pushed since a number.
//
// Consumers that need each push's streams (live tails, the frontend's
// cache generations, metrics, the stream index, live patterns) subscribe,
// in one ordered list (Subscribe).
//
// Order. An acknowledged push is, in this order: recorded as the tenant's
// last acknowledgement, told to the subscribers in their order, then given
// its number. A reader that sees the number therefore also finds the push
// in every subscriber (the stream index answers labels cached under that
// number) and finds the read-your-writes wait covering it (steps and
// answers kept under the number hold it); a reader that sees a cache
// generation a subscriber moved on also waits for the push. A failed push
// is told to the subscribers, then numbered.
//
// Replicas. vloki replicas that together are the only writers (package
// peers) record each other's pushes here too (PeerAcked); while a replica
// may be missing some (Config.Complete), push numbers are unknown, and
// after it may have missed some, Gap numbers every tenant as after a
// failed push.
//
// Bounded: a tenant keeps the oldest entry of its last Config.Keep pushes
// (between Keep and 2*Keep of them, 8 bytes each: about 256 KiB per
// tenant with Keep); asking about an older number answers "unknown", and
// the caller assumes the worst. Only the last acknowledgement's time is
// kept, as only it is read. Tenants are never forgotten: a tenant's entry
// is those few words when Keep is 0.
package acks

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// Keep is how many pushes a tenant's history holds when vloki is the only
// writer into VictoriaLogs (push numbers then say everything that
// changed): 8 bytes each.
const Keep = 1 << 14

// Config configures a ledger.
type Config struct {
	// Keep is how many pushes per tenant the ledger remembers the oldest
	// entry of (0: none, OldestSince answers only for the last number).
	Keep int
	// Now is the clock acknowledgements are timed by (time.Now if nil).
	Now func() time.Time
	// Complete, when set, reports whether the ledger holds every push
	// acknowledged so far by any writer (vloki replicas that together are
	// the only writers, package peers); while it does not, OldestSince and
	// KnownSeq answer "unknown". Nil: always.
	Complete func() bool
}

// Ledger is the ledger of acknowledged pushes.
type Ledger struct {
	keep     int
	now      func() time.Time
	complete func() bool
	subs     []Subscriber

	mu      sync.Mutex
	acked   uint64 // acknowledgements so far, every tenant
	tenants map[tenant.ID]*pushes
	// gaps counts Gap calls: a tenant the ledger meets after them starts
	// at that number, as if each had been a failed push of it.
	gaps uint64
}

// Ack is a tenant's last acknowledged push.
type Ack struct {
	// Order numbers it among every tenant's acknowledgements, from 1 (0:
	// the tenant had none): a flush started after the Nth acknowledgement
	// shows the first N.
	Order uint64
	// At is when it was acknowledged.
	At time.Time
}

// Push is an acknowledged push, as subscribers are told of it.
type Push struct {
	Tenant  tenant.ID
	Streams []lokidata.Stream
	// Oldest is its oldest entry's timestamp (math.MaxInt64 when none).
	Oldest int64
	// At is when it was acknowledged.
	At time.Time
	// Peer: another vloki replica acknowledged it (package peers), so
	// this process's own figures leave it out.
	Peer bool
}

// Subscriber is a consumer told of every push; any function may be nil.
type Subscriber struct {
	// Writing is told that a push of the tenant's streams is about to be
	// written.
	Writing func(context.Context, tenant.ID, []lokidata.Stream)
	// Acked is told of a push VictoriaLogs acknowledged.
	Acked func(Push)
	// Failed is told of a push that failed once sent: VictoriaLogs may
	// hold part of it.
	Failed func(tenant.ID)
}

// Streams adapts a consumer of a tenant's pushed streams to Acked.
func Streams(f func(tenant.ID, []lokidata.Stream)) func(Push) {
	return func(p Push) { f(p.Tenant, p.Streams) }
}

// pushes is one tenant's part of the ledger.
type pushes struct {
	last Ack
	// oldest[i] is the oldest entry timestamp of push number first+i+1.
	oldest []int64
	first  uint64
}

func (p *pushes) seq() uint64 { return p.first + uint64(len(p.oldest)) }

// New returns an empty ledger.
func New(c Config) *Ledger {
	if c.Now == nil {
		c.Now = time.Now
	}
	return &Ledger{keep: c.Keep, now: c.Now, complete: c.Complete, tenants: map[tenant.ID]*pushes{}}
}

// Subscribe appends subs to the consumers told of every push, in order.
// Assembly calls it before the first push.
func (l *Ledger) Subscribe(subs ...Subscriber) { l.subs = append(l.subs, subs...) }

// Writing tells the subscribers that a push of t's streams is about to be
// written.
func (l *Ledger) Writing(ctx context.Context, t tenant.ID, streams []lokidata.Stream) {
	for _, s := range l.subs {
		if s.Writing != nil {
			s.Writing(ctx, t, streams)
		}
	}
}

// Acked records a push of t that VictoriaLogs acknowledged: first as the
// tenant's last acknowledgement, then to the subscribers, then numbered
// (see the package comment for why in this order).
func (l *Ledger) Acked(t tenant.ID, streams []lokidata.Stream) {
	l.acked1(Push{Tenant: t, Streams: streams}, false)
}

// PeerAcked records a push another vloki replica had acknowledged, as
// Acked does (package peers).
func (l *Ledger) PeerAcked(t tenant.ID, streams []lokidata.Stream) {
	l.acked1(Push{Tenant: t, Streams: streams}, true)
}

func (l *Ledger) acked1(p Push, peer bool) {
	t := p.Tenant
	p.Oldest, p.At, p.Peer = oldestEntry(p.Streams), l.acknowledge(t), peer
	for _, s := range l.subs {
		if s.Acked != nil {
			s.Acked(p)
		}
	}
	l.number(t, p.Oldest)
}

// Failed records a push of t that failed once sent: told to the
// subscribers, then numbered as one that may have left rows of any time
// behind. It is no acknowledgement: reads do not wait for it.
func (l *Ledger) Failed(t tenant.ID) {
	for _, s := range l.subs {
		if s.Failed != nil {
			s.Failed(t)
		}
	}
	l.number(t, math.MinInt64)
}

// acknowledge makes t's last acknowledgement the next one, now.
func (l *Ledger) acknowledge(t tenant.ID) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acked++
	p := l.tenantLocked(t)
	p.last = Ack{Order: l.acked, At: l.now()}
	return p.last.At
}

// number gives t's next push number to a push whose oldest entry is at
// oldest, dropping the history beyond the bound.
func (l *Ledger) number(t tenant.ID, oldest int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.tenantLocked(t)
	if l.keep == 0 {
		p.first++
		return
	}
	p.oldest = append(p.oldest, oldest)
	if len(p.oldest) >= 2*l.keep {
		drop := len(p.oldest) - l.keep
		p.oldest = append(p.oldest[:0:0], p.oldest[drop:]...)
		p.first += uint64(drop)
	}
}

func (l *Ledger) tenantLocked(t tenant.ID) *pushes {
	p := l.tenants[t]
	if p == nil {
		p = &pushes{first: l.gaps}
		l.tenants[t] = p
	}
	return p
}

// Gap records that pushes of any tenant may have been acknowledged
// without this ledger being told (a replica could not reach this one):
// every tenant, known or met later, gets a push number that may have left
// rows of any time behind, as a failed push does.
func (l *Ledger) Gap() {
	l.mu.Lock()
	tenants := make([]tenant.ID, 0, len(l.tenants))
	for t := range l.tenants {
		tenants = append(tenants, t)
	}
	l.gaps++
	l.mu.Unlock()
	for _, t := range tenants {
		l.number(t, math.MinInt64)
	}
}

// LastAck is t's last acknowledged push (Order 0 when none).
func (l *Ledger) LastAck(t tenant.ID) Ack {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.tenants[t]; p != nil {
		return p.last
	}
	return Ack{}
}

// Acknowledged is how many pushes were acknowledged so far, every
// tenant's: the Order of the last one.
func (l *Ledger) Acknowledged() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acked
}

// Seq is the number of t's last numbered push, acknowledged or failed (0
// when none; the number of gaps for a tenant the ledger has not met).
func (l *Ledger) Seq(t tenant.ID) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.tenants[t]; p != nil {
		return p.seq()
	}
	return l.gaps
}

// KnownSeq is Seq while the ledger is complete (Config.Complete); ok is
// false when it may be missing pushes.
func (l *Ledger) KnownSeq(t tenant.ID) (seq uint64, ok bool) {
	if l.complete != nil && !l.complete() {
		return 0, false
	}
	return l.Seq(t), true
}

// OldestSince is the oldest entry timestamp of t's pushes numbered after
// seq (math.MaxInt64 when none; math.MinInt64 when one failed); ok is
// false when the ledger no longer holds them all, or may be missing some
// (Config.Complete).
func (l *Ledger) OldestSince(t tenant.ID, seq uint64) (oldest int64, ok bool) {
	if l.complete != nil && !l.complete() {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.tenants[t]
	if p == nil {
		return math.MaxInt64, seq == l.gaps
	}
	if seq < p.first || seq > p.seq() {
		return 0, false
	}
	oldest = math.MaxInt64
	for _, ts := range p.oldest[seq-p.first:] {
		oldest = min(oldest, ts)
	}
	return oldest, true
}

// oldestEntry is the oldest entry timestamp of streams.
func oldestEntry(streams []lokidata.Stream) int64 {
	oldest := int64(math.MaxInt64)
	for _, s := range streams {
		for _, e := range s.Entries {
			oldest = min(oldest, e.TimestampNs)
		}
	}
	return oldest
}
