package canary

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// tailIdle is how long a tail may stay silent (no entry, no ping) before
// it counts as broken and is opened again.
const tailIdle = 30 * time.Second

// Canary is one checker; Run runs it once.
type Canary struct {
	cfg   Config
	c     *client
	b     *book
	sel   string
	rnd   *rand.Rand
	start time.Time // set when Run starts, before anything reads it

	mu      sync.Mutex
	spots   []*entry  // kept for spot checks, oldest first
	started time.Time // start, for Snapshot
}

// New checks cfg and makes a checker of it.
func New(cfg Config) (*Canary, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	hc := cfg.Client
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 8}}
	}
	seed := cfg.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	sel := cfg.selector()
	// Settled entries are remembered as long as a metric test's window
	// or a late delivery may still need them.
	keep := max(cfg.MetricTestRange, cfg.MaxWait) + cfg.OutOfOrderMax + cfg.Wait
	return &Canary{
		cfg: cfg,
		c:   &client{base: cfg.baseURL(), tenant: cfg.TenantID, http: hc, labels: sel},
		b:   newBook(cfg.Size, cfg.Wait, cfg.MaxWait, keep, cfg.Logf),
		sel: sel,
		rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
	}, nil
}

// Snapshot is the report so far.
func (k *Canary) Snapshot() Report {
	r := k.b.report()
	k.mu.Lock()
	started := k.started
	k.mu.Unlock()
	if !started.IsZero() {
		r.Seconds = time.Since(started).Seconds()
	}
	return r
}

// Run checks the server: it opens the tail, pushes for Duration (or until
// ctx ends) while the prune, spot-check and metric-test loops run, then
// drains (at most Drain) so that every entry sent is accounted for, runs
// a last metric test and a last spot check, and reports. An error means
// the check could not start (the tail could not be opened).
func (k *Canary) Run(ctx context.Context) (Report, error) {
	k.start = time.Now()
	k.mu.Lock()
	k.started = k.start
	k.mu.Unlock()
	conn, err := k.c.dialTail(ctx, k.sel, k.start)
	if err != nil {
		return Report{}, err
	}
	tailCtx, stopTail := context.WithCancel(context.WithoutCancel(ctx))
	tailDone := make(chan struct{})
	go func() { defer close(tailDone); k.follow(tailCtx, conn) }()

	pushCtx, stopPush := ctx, context.CancelFunc(func() {})
	if k.cfg.Duration > 0 {
		pushCtx, stopPush = context.WithTimeout(ctx, k.cfg.Duration)
	}
	var wg sync.WaitGroup
	for _, loop := range []func(context.Context){k.write, k.pruneLoop, k.spotPick, k.spotLoop, k.metricLoop} {
		wg.Go(func() { loop(pushCtx) })
	}
	wg.Wait()
	stopPush()

	// Draining outlives an interrupted ctx: it is bounded by Drain.
	end := context.WithoutCancel(ctx)
	k.drain(end)
	k.metricTest(end)
	k.spotCheck(end)
	stopTail()
	<-tailDone
	return k.Snapshot(), nil
}

// sleep waits d or until ctx ends, reporting whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// every runs f every d until ctx ends, first after first.
func every(ctx context.Context, first, d time.Duration, f func()) {
	if !sleep(ctx, first) {
		return
	}
	f()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}

// write sends an entry every interval, a share of them stamped back
// between OutOfOrderMin and OutOfOrderMax. Pushes are sequential: a tick
// that comes while a push is still going is skipped.
func (k *Canary) write(ctx context.Context) {
	t := time.NewTicker(k.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var back time.Duration
		if k.cfg.OutOfOrderPercentage > 0 && k.rnd.IntN(100) < k.cfg.OutOfOrderPercentage {
			back = k.cfg.OutOfOrderMin + time.Duration(k.rnd.Int64N(int64(k.cfg.OutOfOrderMax-k.cfg.OutOfOrderMin)+1))
		}
		e := k.b.send(time.Now(), back)
		if err := k.pushEntry(ctx, e); err != nil {
			k.b.pushFailed(e, err)
		} else {
			k.b.acked(e, time.Now())
		}
	}
}

// pushEntry pushes e, retrying with backoff what may succeed again. A
// push already started finishes even when ctx ends; retries stop then.
func (k *Canary) pushEntry(ctx context.Context, e *entry) error {
	backoff := k.cfg.WriteMinBackoff
	for attempt := 0; ; attempt++ {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), k.cfg.WriteTimeout)
		err := k.c.push(pctx, e.ts, line(e.ts, k.cfg.Size))
		cancel()
		if err == nil || !retryable(err) || attempt >= k.cfg.WriteMaxRetries || !sleep(ctx, backoff) {
			return err
		}
		backoff = min(2*backoff, max(k.cfg.WriteMaxBackoff, k.cfg.WriteMinBackoff))
	}
}

// pruneLoop gives up waiting on the tail for old entries and asks for
// them by query, every PruneInterval.
func (k *Canary) pruneLoop(ctx context.Context) {
	every(ctx, k.cfg.PruneInterval, k.cfg.PruneInterval, func() {
		k.b.prune(time.Now(), false)
		k.queryLost(ctx, false)
	})
}

// queryLost asks for the entries the tail missed; see book.resolve.
func (k *Canary) queryLost(ctx context.Context, giveUp bool) int {
	ts := k.b.lost()
	if len(ts) == 0 {
		return 0
	}
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), k.cfg.QueryTimeout)
	defer cancel()
	got, err := k.c.queryRange(qctx, k.sel, ts[0], ts[len(ts)-1]+1, 1000)
	if err != nil {
		k.queryFailed("querying for entries the tail missed", err)
	}
	k.b.resolve(got, time.Now(), giveUp)
	return len(ts)
}

func (k *Canary) queryFailed(what string, err error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	k.b.r.QueryErrors++
	k.b.finding("%s: %v", what, err)
}

// drain waits for the tail to deliver what is still awaited (half of
// Drain), then asks for the rest by query until found or Drain is up.
func (k *Canary) drain(ctx context.Context) {
	start := time.Now()
	for k.b.waiting() > 0 && time.Since(start) < k.cfg.Drain/2 {
		sleep(ctx, 20*time.Millisecond)
	}
	k.b.prune(time.Now(), true)
	for {
		giveUp := time.Since(start) >= k.cfg.Drain
		if k.queryLost(ctx, giveUp) == 0 || giveUp {
			return
		}
		sleep(ctx, min(500*time.Millisecond, max(k.cfg.Drain/10, time.Millisecond)))
	}
}

// spotPick keeps the entry last acknowledged every SpotCheckInterval and
// lets go of those kept longer than SpotCheckMax.
func (k *Canary) spotPick(ctx context.Context) {
	every(ctx, k.cfg.SpotCheckInterval, k.cfg.SpotCheckInterval, func() {
		e := k.b.latest()
		now := time.Now()
		k.mu.Lock()
		defer k.mu.Unlock()
		if e != nil && (len(k.spots) == 0 || k.spots[len(k.spots)-1] != e) {
			k.spots = append(k.spots, e)
		}
		for len(k.spots) > 0 && k.cfg.SpotCheckMax > 0 && now.Sub(k.spots[0].sent) > k.cfg.SpotCheckMax {
			k.spots = k.spots[1:]
		}
	})
}

func (k *Canary) spotLoop(ctx context.Context) {
	every(ctx, k.cfg.SpotCheckInitialWait, k.cfg.SpotCheckQueryRate, func() { k.spotCheck(ctx) })
}

// spotCheck queries for every kept entry, each on its own.
func (k *Canary) spotCheck(ctx context.Context) {
	k.mu.Lock()
	spots := append([]*entry(nil), k.spots...)
	k.mu.Unlock()
	for _, e := range spots {
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), k.cfg.QueryTimeout)
		start := time.Now()
		got, err := k.c.queryRange(qctx, k.sel, e.ts-int64(time.Millisecond), e.ts+int64(time.Millisecond), 100)
		d := time.Since(start)
		cancel()
		if err != nil {
			k.queryFailed("spot check", err)
			continue
		}
		text, ok := got[e.ts]
		k.b.mu.Lock()
		k.b.r.SpotChecks++
		k.b.r.SpotCheckSeconds += d.Seconds()
		if !ok || text != line(e.ts, k.cfg.Size) {
			k.b.r.SpotCheckMissing++
			k.b.finding("spot check: entry %d (acknowledged %s before) not found", e.ts, time.Since(e.acked).Round(time.Millisecond))
		}
		k.b.mu.Unlock()
	}
}

func (k *Canary) metricLoop(ctx context.Context) {
	every(ctx, k.cfg.MetricTestInterval, k.cfg.MetricTestInterval, func() { k.metricTest(ctx) })
}

// metricTest asks count_over_time of the stream over MetricTestRange
// (truncated to the running time) and compares the count with what was
// acknowledged in that window before the query, and sent before its
// answer.
func (k *Canary) metricTest(ctx context.Context) {
	now := time.Now()
	rng := min(k.cfg.MetricTestRange, now.Sub(k.start)).Truncate(time.Millisecond)
	if rng <= 0 {
		return
	}
	t := now.UnixNano()
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), k.cfg.QueryTimeout)
	defer cancel()
	asked := time.Now()
	v, err := k.c.count(qctx, k.sel, rng, t)
	d := time.Since(asked)
	if err != nil {
		k.queryFailed("metric test", err)
		return
	}
	lo, hi := k.b.window(t-rng.Nanoseconds(), t, asked, time.Now())
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	r := &k.b.r
	r.MetricTests++
	r.MetricTestSeconds += d.Seconds()
	r.MetricTestExpected = float64(rng / k.cfg.Interval)
	r.MetricTestActual = v
	if v < float64(lo) || v > float64(hi) {
		r.MetricTestMiscounts++
		if lo == hi {
			k.b.finding("metric test: count_over_time over %s counted %v, %d acknowledged", rng, v, lo)
		} else {
			k.b.finding("metric test: count_over_time over %s counted %v, between %d and %d acknowledged", rng, v, lo, hi)
		}
	}
}

// reconnect counts a reconnection of the tail and notes why.
func (k *Canary) reconnect(format string, err error) {
	k.b.update(func(r *Report) { r.Reconnects++ })
	k.b.mu.Lock()
	k.b.finding(format, err)
	k.b.mu.Unlock()
}

// follow reads the tail until ctx ends, opening it again whenever it
// breaks (from then on: what was pushed meanwhile is the queries' job).
func (k *Canary) follow(ctx context.Context, conn *websocket.Conn) {
	for {
		err := k.read(ctx, conn)
		if ctx.Err() != nil {
			return
		}
		k.reconnect("tail broke (%v): reconnecting", err)
		for {
			if !sleep(ctx, 500*time.Millisecond) {
				return
			}
			if conn, err = k.c.dialTail(ctx, k.sel, time.Now()); err == nil {
				break
			}
			if ctx.Err() != nil {
				return
			}
			k.reconnect("reconnecting the tail: %v", err)
		}
	}
}

// read takes the tail's frames until it breaks or ctx ends, then closes it.
func (k *Canary) read(ctx context.Context, conn *websocket.Conn) error {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			_ = conn.Close()
		case <-done:
			_ = conn.Close()
		}
	}()
	conn.SetPingHandler(func(data string) error {
		k.b.update(func(r *Report) { r.Pings++ })
		_ = conn.SetReadDeadline(time.Now().Add(tailIdle))
		err := conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
		var ne net.Error
		if errors.Is(err, websocket.ErrCloseSent) || errors.As(err, &ne) && ne.Timeout() {
			return nil
		}
		return err
	})
	for {
		_ = conn.SetReadDeadline(time.Now().Add(tailIdle))
		_, msg, err := conn.ReadMessage()
		if err != nil {
			return err
		}
		now := time.Now()
		var f tailFrame
		if err := json.Unmarshal(msg, &f); err != nil {
			return err
		}
		ts, lines, dropped, err := f.entries()
		if err != nil {
			return err
		}
		for i := range ts {
			k.b.receive(ts[i], lines[i], now)
		}
		if dropped > 0 {
			k.b.update(func(r *Report) { r.TailDropped += dropped })
		}
	}
}
