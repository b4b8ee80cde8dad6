// Package lease elects one evaluating ruler among replicas sharing a rule
// directory: the holder of a lease file renews it; the others take it over
// once it has not changed for the lease duration, or at once when it is
// released.
//
// Expiry is measured by each replica on its own monotonic clock, from the
// moment it last saw the file change: wall clocks are never compared, so
// clock skew between replicas does not matter. A taker writes the file
// (temporary file, rename), waits a settle delay, and reads it back: when
// two replicas take an expired lease at once, the last rename wins and
// only its writer finds itself in the file. The holder stops evaluating
// once it has failed to renew for duration − renew period, before anyone
// may take over.
package lease

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vloki/vloki/internal/storage/atomicfile"
)

// FileName is the lease file's name in the rule directory (hidden, and a
// file, so never a tenant).
const FileName = ".ruler-lease"

// Options configure a lease.
type Options struct {
	// Path is the lease file.
	Path string
	// Holder names this replica; it must be unique among the replicas.
	Holder string
	// Duration: a lease not renewed for that long may be taken over.
	// RenewPeriod: how often the holder renews it, and the others look.
	Duration, RenewPeriod time.Duration
	// OnAcquire runs when this replica takes the lease, OnLose when it no
	// longer holds it (also on Stop); both on the lease's goroutine.
	OnAcquire, OnLose func()
	Log               *slog.Logger
	// Registerer, when set, gets vloki_ruler_lease_held and
	// vloki_ruler_lease_acquisitions_total.
	Registerer prometheus.Registerer
}

// record is the lease file's content. Renewed and Expires are the
// holder's wall clock, for people reading the file; Sequence changes at
// each renewal, which is what the others watch.
type record struct {
	Holder   string    `json:"holder"`
	Sequence uint64    `json:"sequence"`
	Renewed  time.Time `json:"renewed"`
	Expires  time.Time `json:"expires"`
}

// Lease takes and renews the lease file for one replica.
type Lease struct {
	o        Options
	mu       sync.Mutex // held by tick and Stop
	held     bool
	sequence uint64
	renewed  time.Time // the last successful renewal (monotonic)
	seen     []byte    // the file as last read while not holding it
	seenAt   time.Time // when it last changed, on this replica's clock
	heldG    prometheus.Gauge
	acquired prometheus.Counter
	cancel   context.CancelFunc
	done     chan struct{}
}

// New returns a lease not yet started.
func New(o Options) *Lease {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.OnAcquire == nil {
		o.OnAcquire = func() {}
	}
	if o.OnLose == nil {
		o.OnLose = func() {}
	}
	l := &Lease{o: o,
		heldG: prometheus.NewGauge(prometheus.GaugeOpts{Name: "vloki_ruler_lease_held",
			Help: "Whether this replica holds the ruler's evaluation lease (1) and evaluates the rules, or not (0)."}),
		acquired: prometheus.NewCounter(prometheus.CounterOpts{Name: "vloki_ruler_lease_acquisitions_total",
			Help: "Times this replica took the ruler's evaluation lease."})}
	if o.Registerer != nil {
		o.Registerer.MustRegister(l.heldG, l.acquired)
	}
	return l
}

// DefaultHolder names a replica: host name, pid and a random part, so
// that two containers with the same host name and pid differ.
func DefaultHolder() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%x", host, os.Getpid(), b)
}

// Start looks at the lease at once, then every renew period, until Stop.
func (l *Lease) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel, l.done = cancel, make(chan struct{})
	go func() {
		defer close(l.done)
		t := time.NewTicker(l.o.RenewPeriod)
		defer t.Stop()
		for {
			l.tick(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// Stop stops looking at the lease; a holder stops evaluating, then
// releases the lease so that another replica takes over at once.
func (l *Lease) Stop() {
	if l.cancel != nil {
		l.cancel()
		<-l.done
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.held {
		return
	}
	l.lose("stopping")
	if err := l.write(record{Holder: "", Sequence: l.sequence + 1, Renewed: time.Now()}); err != nil {
		l.o.Log.Warn("ruler lease: releasing", "file", l.o.Path, "err", err)
	}
}

// Held reports whether this replica holds the lease.
func (l *Lease) Held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held
}

func (l *Lease) tick(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	raw, rec, err := l.read()
	switch {
	case err != nil:
		l.o.Log.Warn("ruler lease: reading", "file", l.o.Path, "err", err)
		l.renewFailed(now)
	case l.held && rec.Holder == l.o.Holder:
		l.renew(now)
	case l.held:
		l.lose("taken over by " + rec.Holder)
		l.seen, l.seenAt = raw, now
	case rec.Holder == "" || rec.Holder == l.o.Holder || l.expired(raw, now):
		l.acquire(ctx, now)
	}
}

// expired: the file has not changed for the lease duration, as this
// replica has watched it.
func (l *Lease) expired(raw []byte, now time.Time) bool {
	if l.seenAt.IsZero() || !bytes.Equal(raw, l.seen) {
		l.seen, l.seenAt = raw, now
		return false
	}
	return now.Sub(l.seenAt) >= l.o.Duration
}

func (l *Lease) renew(now time.Time) {
	l.sequence++
	if err := l.write(record{Holder: l.o.Holder, Sequence: l.sequence, Renewed: now, Expires: now.Add(l.o.Duration)}); err != nil {
		l.o.Log.Warn("ruler lease: renewing", "file", l.o.Path, "err", err)
		l.renewFailed(now)
		return
	}
	l.renewed = now
}

// renewFailed gives the lease up before anyone may take it over.
func (l *Lease) renewFailed(now time.Time) {
	if l.held && now.Sub(l.renewed) >= l.o.Duration-l.o.RenewPeriod {
		l.lose("not renewed since " + l.renewed.Format(time.RFC3339))
	}
}

// acquire writes this replica into the file, waits for a concurrent taker
// to have written too, and holds the lease if the file still names it.
func (l *Lease) acquire(ctx context.Context, now time.Time) {
	l.sequence++
	mine := record{Holder: l.o.Holder, Sequence: l.sequence, Renewed: now, Expires: now.Add(l.o.Duration)}
	if err := l.write(mine); err != nil {
		l.o.Log.Warn("ruler lease: taking", "file", l.o.Path, "err", err)
		return
	}
	select {
	case <-ctx.Done():
		return
	case <-time.After(l.settle()):
	}
	raw, rec, err := l.read()
	if err != nil || rec.Holder != mine.Holder || rec.Sequence != mine.Sequence {
		l.seen, l.seenAt = raw, time.Now()
		return
	}
	l.held, l.renewed, l.seen, l.seenAt = true, now, nil, time.Time{}
	l.heldG.Set(1)
	l.acquired.Inc()
	l.o.Log.Info("ruler lease taken: this replica evaluates the rules", "holder", l.o.Holder, "file", l.o.Path)
	l.o.OnAcquire()
}

// settle is how long a taker waits before reading the file back: longer
// than another taker takes from reading the file to renaming its own.
func (l *Lease) settle() time.Duration { return l.o.RenewPeriod / 5 }

func (l *Lease) lose(why string) {
	l.held = false
	l.heldG.Set(0)
	l.o.Log.Info("ruler lease lost: this replica stops evaluating", "holder", l.o.Holder, "why", why)
	l.o.OnLose()
}

// read is the file's bytes and record; a missing file is a free lease,
// an unreadable record one held by nobody.
func (l *Lease) read() ([]byte, record, error) {
	raw, err := os.ReadFile(l.o.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, record{}, nil
	}
	if err != nil {
		return nil, record{}, err
	}
	var rec record
	if json.Unmarshal(raw, &rec) != nil {
		return raw, record{}, nil
	}
	return raw, rec, nil
}

func (l *Lease) write(rec record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return atomicfile.Write(l.o.Path, append(b, '\n'))
}
