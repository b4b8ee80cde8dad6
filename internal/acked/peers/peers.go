// Package peers lets vloki replicas that together are the only writers
// into one VictoriaLogs know every push any of them acknowledged, as one
// vloki does (-backend.sole-writer): push numbers, the stream index and
// the live patterns then hold on every replica, and what they save a
// sole writer is not lost by running two.
//
// Deliveries. A replica acknowledges a push to its client only once every
// other replica was told of it (POST /vloki/peers/push; a failed push is
// told as well), or once that replica surely stopped trusting what it
// knows. Delete requests taken, cancelled or processed are told alike.
//
// Leases. A replica trusts its knowledge only under a lease from every
// other: it asks each (POST /vloki/peers/lease) every Lease/4 and holds
// that one's lease for Lease from the moment it asked. The asked replica
// answers with its epoch for the asker, and from then on delivers to it
// before acknowledging. When a delivery fails, the deliverer moves that
// epoch on, stops delivering, and acknowledges only once every lease it
// granted under the old epoch has run out (its last answer + Lease +
// margin, on its own monotonic clock; clocks are never compared). An
// asker that finds a new epoch, or meets a replica for the first time,
// first runs Gap — every acknowledged row made searchable, every tenant
// numbered as after a failed push, the stream index and the live patterns
// forgotten, its own cache generations moved on — and trusts only after
// it: every push it was not told of was acknowledged by the storage before
// that epoch began.
//
// Without every lease (a replica down, out of reach, or just started),
// reads are answered without the sole-writer knowledge and pushes go on:
// one that cannot be delivered waits at most Lease + margin.
package peers

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vloki/vloki/internal/edge/tenant"
	"github.com/vloki/vloki/internal/lokidata"
)

// DefaultLease is how long a replica trusts another after asking it.
const DefaultLease = 2 * time.Second

// Headers of the replicas' requests to each other.
const (
	peerHeader   = "X-Vloki-Peer"
	tenantHeader = "X-Vloki-Tenant"
	// bootHeader tells a replica's processes apart in lease requests.
	bootHeader = "X-Vloki-Boot"
)

// maxPrepared bounds the tenants a replica remembers having prepared in
// another (8 bytes and a map entry each); beyond it, it starts over.
const maxPrepared = 100_000

// Config configures a replica's part of the group.
type Config struct {
	// Self is this replica's URL as the others reach it; Peers are the
	// others' (Self is skipped when listed, so every replica can be given
	// one list).
	Self  string
	Peers []string
	// Lease is how long an answer to a lease request is trusted
	// (DefaultLease when 0).
	Lease time.Duration
	// Client sends the requests (http.DefaultClient when nil).
	Client *http.Client
	Log    *slog.Logger
	// MaxBodyBytes bounds a delivered push's body.
	MaxBodyBytes int64
}

// Local is what the other replicas' reports change in this one.
type Local struct {
	// Acked and Failed apply a push another replica acknowledged, or one
	// that failed once sent, to this replica's ledger.
	Acked  func(ctx context.Context, t tenant.ID, streams []lokidata.Stream)
	Failed func(t tenant.ID)
	// Prepare is told that another replica is about to write the
	// tenant's first push since this one met it: it reads what the
	// storage held before (the stream index's horizon).
	Prepare func(ctx context.Context, t tenant.ID)
	// Invalidated and Deleted apply a delete request another replica
	// took or cancelled (answers change), or whose rows it deleted from
	// storage (what was learnt from pushes goes too).
	Invalidated, Deleted func(t tenant.ID)
	// Gap runs before this replica trusts a replica again after pushes
	// may have been acknowledged without it being told.
	Gap func(ctx context.Context) error
}

// Group is this replica's part of the group.
type Group struct {
	cfg    Config
	boot   string
	local  atomic.Pointer[Local]
	base   time.Time
	margin time.Duration
	out    map[string]*outbound // by the peer's URL
	outs   []*outbound
	ins    []*inbound
	gapMu  sync.Mutex
	gaps   atomic.Int64

	trustMu sync.Mutex
	// trustedUntil is the earliest lease end (since base, ns).
	trustedUntil atomic.Int64

	stop chan struct{}
	wg   sync.WaitGroup
}

// outbound is what this replica delivers to one peer.
type outbound struct {
	url string
	mu  sync.Mutex
	// epoch is the peer's view of this replica's deliveries: it changes
	// whenever a delivery failed.
	epoch uint64
	// live: deliveries are made (a lease was granted since the last
	// failure).
	live bool
	// lastAnswer is when a lease was last granted; waitUntil when every
	// lease granted under an earlier epoch has surely run out (since
	// base, ns).
	lastAnswer, waitUntil int64
	// prepared are the tenants the peer's process (boot) was told of
	// before a push was written, since the epoch began.
	prepared map[tenant.ID]bool
	boot     string
}

// inbound is this replica's trust in one peer; only its probe touches it.
type inbound struct {
	url        string
	epoch      uint64
	known      bool
	leaseUntil int64
}

// New returns the group; Start begins asking for leases. Until then,
// nothing is trusted and the others' reports are refused.
func New(cfg Config) *Group {
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Client == nil {
		cfg.Client = http.DefaultClient
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	g := &Group{cfg: cfg, boot: strconv.FormatUint(randomEpoch(), 36), base: time.Now(), margin: cfg.Lease/10 + 100*time.Millisecond,
		out: map[string]*outbound{}, stop: make(chan struct{})}
	self := normalize(cfg.Self)
	for _, u := range cfg.Peers {
		u = normalize(u)
		if u == self || u == "" || g.out[u] != nil {
			continue
		}
		// An earlier process may have granted leases: wait them out.
		o := &outbound{url: u, epoch: randomEpoch(), waitUntil: g.now() + int64(cfg.Lease+g.margin)}
		g.out[u], g.outs = o, append(g.outs, o)
		g.ins = append(g.ins, &inbound{url: u})
	}
	return g
}

func normalize(u string) string { return strings.TrimRight(strings.TrimSpace(u), "/") }

func randomEpoch() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

func (g *Group) now() int64 { return int64(time.Since(g.base)) }

// Start applies the others' reports to local and asks every peer for a
// lease every Lease/4 until Close.
func (g *Group) Start(local Local) {
	g.local.Store(&local)
	for _, in := range g.ins {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			g.probe(in)
		}()
	}
}

// Close stops asking for leases.
func (g *Group) Close() {
	close(g.stop)
	g.wg.Wait()
}

// Trusted reports whether this replica holds a lease from every peer:
// then its ledger holds every push acknowledged so far by any replica.
func (g *Group) Trusted() bool { return g.now() < g.trustedUntil.Load() }

// Gaps is how many times this replica started over (Local.Gap).
func (g *Group) Gaps() int64 { return g.gaps.Load() }

func (g *Group) probe(in *inbound) {
	tick := time.NewTicker(g.cfg.Lease / 4)
	defer tick.Stop()
	for {
		g.renew(in)
		select {
		case <-g.stop:
			return
		case <-tick.C:
		}
	}
}

// renew asks in's replica for a lease, running Gap first when its epoch
// is new to this replica.
func (g *Group) renew(in *inbound) {
	asked := g.now()
	epoch, err := g.askLease(in.url)
	if err != nil {
		g.cfg.Log.Debug("peer lease", "peer", in.url, "err", err)
		return
	}
	if !in.known || in.epoch != epoch {
		g.setLease(in, 0)
		if err := g.gap(); err != nil {
			g.cfg.Log.Warn("peer gap: not trusting the replicas' knowledge", "peer", in.url, "err", err)
			return
		}
		in.epoch, in.known = epoch, true
	}
	g.setLease(in, asked+int64(g.cfg.Lease))
}

func (g *Group) gap() error {
	g.gapMu.Lock()
	defer g.gapMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g.gaps.Add(1)
	return g.local.Load().Gap(ctx)
}

func (g *Group) setLease(in *inbound, until int64) {
	g.trustMu.Lock()
	defer g.trustMu.Unlock()
	in.leaseUntil = until
	earliest := until
	for _, other := range g.ins {
		earliest = min(earliest, other.leaseUntil)
	}
	g.trustedUntil.Store(earliest)
}

func (g *Group) askLease(peer string) (uint64, error) {
	body, err := g.post(peer+"/vloki/peers/lease", tenant.ID{}, nil, http.StatusOK)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(body)), 10, 64)
}

// post sends one request to a peer, within half a lease.
func (g *Group) post(url string, t tenant.ID, body []byte, want int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.Lease/2)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set(peerHeader, normalize(g.cfg.Self))
	req.Header.Set(tenantHeader, formatTenant(t))
	req.Header.Set(bootHeader, g.boot)
	resp, err := g.cfg.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err == nil && resp.StatusCode != want {
		err = fmt.Errorf("%s: %d %s", url, resp.StatusCode, bytes.TrimSpace(b))
	}
	return b, err
}

// Writing tells every peer that has not heard of the tenant since it met
// this replica that a push of it is about to be written, so that it reads
// what the storage held before (the push's rows are then all it learns).
// Best effort: a peer not told reads it when first asked, after the rows
// are stored, and answers fewer ranges from memory.
func (g *Group) Writing(t tenant.ID) {
	for _, o := range g.outs {
		o.mu.Lock()
		live, epoch, done := o.live, o.epoch, o.prepared[t]
		o.mu.Unlock()
		if !live || done {
			continue
		}
		if _, err := g.post(o.url+"/vloki/peers/prepare", t, nil, http.StatusNoContent); err != nil {
			continue
		}
		o.mu.Lock()
		if o.epoch == epoch {
			if o.prepared == nil || len(o.prepared) >= maxPrepared {
				o.prepared = map[tenant.ID]bool{}
			}
			o.prepared[t] = true
		}
		o.mu.Unlock()
	}
}

// Acked delivers a push this replica acknowledged to every peer; it
// returns once each was told or surely trusts nothing it knows.
func (g *Group) Acked(t tenant.ID, streams []lokidata.Stream) {
	if len(g.outs) == 0 {
		return
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(streams); err != nil {
		g.cfg.Log.Error("encoding a push for the peers", "err", err)
	}
	g.deliverAll("/vloki/peers/push", t, buf.Bytes())
}

// Failed tells every peer of a push that failed once sent, as Acked.
func (g *Group) Failed(t tenant.ID) { g.deliverAll("/vloki/peers/failed", t, nil) }

// Invalidated tells every peer that the tenant's answers changed (a
// delete request taken or cancelled), as Acked.
func (g *Group) Invalidated(t tenant.ID) { g.deliverAll("/vloki/peers/invalidated", t, nil) }

// Deleted tells every peer that rows of the tenant were deleted from
// storage, as Acked.
func (g *Group) Deleted(t tenant.ID) { g.deliverAll("/vloki/peers/deleted", t, nil) }

func (g *Group) deliverAll(path string, t tenant.ID, body []byte) {
	if len(g.outs) == 1 {
		g.deliver(g.outs[0], path, t, body)
		return
	}
	var wg sync.WaitGroup
	for _, o := range g.outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.deliver(o, path, t, body)
		}()
	}
	wg.Wait()
}

// deliver tells o's replica, or stops delivering to it and waits until
// every lease it holds under the old epoch has run out.
func (g *Group) deliver(o *outbound, path string, t tenant.ID, body []byte) {
	o.mu.Lock()
	live, epoch := o.live, o.epoch
	o.mu.Unlock()
	if live {
		_, err := g.post(o.url+path, t, body, http.StatusNoContent)
		if err == nil {
			return
		}
		g.cfg.Log.Warn("delivering a push to a peer: waiting out its lease", "peer", o.url, "err", err)
		g.lose(o, epoch)
	}
	o.mu.Lock()
	wait := o.waitUntil - g.now()
	o.mu.Unlock()
	if wait > 0 {
		time.Sleep(time.Duration(wait))
	}
}

// lose moves o's epoch on after a delivery made under epoch failed.
func (g *Group) lose(o *outbound, epoch uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.epoch != epoch {
		return // already moved on since; its wait covers this delivery's leases
	}
	o.epoch++
	o.live = false
	o.waitUntil = max(o.waitUntil, o.lastAnswer+int64(g.cfg.Lease+g.margin))
	o.prepared = nil // the peer starts over
}

// grant answers a lease request from o's replica: deliveries to it are
// made from now on.
func (g *Group) grant(o *outbound, boot string) uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if boot != o.boot {
		o.boot, o.prepared = boot, nil // a new process knows nothing yet
	}
	o.live = true
	o.lastAnswer = max(o.lastAnswer, g.now())
	return o.epoch
}

// Handler serves the other replicas' requests under /vloki/peers/.
func (g *Group) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /vloki/peers/lease", func(w http.ResponseWriter, r *http.Request) {
		o := g.out[normalize(r.Header.Get(peerHeader))]
		if o == nil {
			http.Error(w, "not a peer of this replica", http.StatusForbidden)
			return
		}
		_, _ = io.WriteString(w, strconv.FormatUint(g.grant(o, r.Header.Get(bootHeader)), 10))
	})
	mux.HandleFunc("POST /vloki/peers/prepare", g.told(func(r *http.Request, local *Local, t tenant.ID) error {
		if local.Prepare != nil {
			local.Prepare(r.Context(), t)
		}
		return nil
	}))
	mux.HandleFunc("POST /vloki/peers/push", g.told(func(r *http.Request, local *Local, t tenant.ID) error {
		var streams []lokidata.Stream
		if err := gob.NewDecoder(io.LimitReader(r.Body, g.cfg.MaxBodyBytes)).Decode(&streams); err != nil {
			return err
		}
		local.Acked(r.Context(), t, streams)
		return nil
	}))
	for path, apply := range map[string]func(*Local) func(tenant.ID){
		"/vloki/peers/failed":      func(l *Local) func(tenant.ID) { return l.Failed },
		"/vloki/peers/invalidated": func(l *Local) func(tenant.ID) { return l.Invalidated },
		"/vloki/peers/deleted":     func(l *Local) func(tenant.ID) { return l.Deleted },
	} {
		mux.HandleFunc("POST "+path, g.told(func(_ *http.Request, local *Local, t tenant.ID) error {
			if f := apply(local); f != nil {
				f(t)
			}
			return nil
		}))
	}
	return mux
}

// told serves a delivery from a known peer.
func (g *Group) told(apply func(*http.Request, *Local, tenant.ID) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if g.out[normalize(r.Header.Get(peerHeader))] == nil {
			http.Error(w, "not a peer of this replica", http.StatusForbidden)
			return
		}
		local := g.local.Load()
		if local == nil {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		t, err := parseTenant(r.Header.Get(tenantHeader))
		if err == nil {
			err = apply(r, local, t)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

func formatTenant(t tenant.ID) string {
	return strconv.FormatUint(uint64(t.AccountID), 10) + ":" + strconv.FormatUint(uint64(t.ProjectID), 10)
}

func parseTenant(s string) (tenant.ID, error) {
	a, p, ok := strings.Cut(s, ":")
	if !ok {
		return tenant.ID{}, errors.New("bad " + tenantHeader)
	}
	account, err1 := strconv.ParseUint(a, 10, 32)
	project, err2 := strconv.ParseUint(p, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return tenant.ID{}, err
	}
	return tenant.ID{AccountID: uint32(account), ProjectID: uint32(project)}, nil
}
