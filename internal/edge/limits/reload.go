package limits

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vloki/vloki/internal/edge/tenant"
)

// ReloadOptions configure a Reloader.
type ReloadOptions struct {
	// File is Loki's runtime configuration file; Period how often it is
	// read again (Loki's default: 10s).
	File   string
	Period time.Duration
	// Overrides receive the tenants' limits.
	Overrides *Overrides
	// TenantOf maps a tenant name of the file to its VictoriaLogs tenant
	// (the tenant resolver's mapping).
	TenantOf func(string) tenant.ID
	// Changed, when set, is told of every tenant whose limits a load
	// changed: answers cached under the old limits must not be served.
	Changed    func(tenant.ID)
	Log        *slog.Logger
	Registerer prometheus.Registerer
}

// Reloader keeps Overrides as the runtime configuration file says, as
// Loki's runtime config manager does: the file is read at start (a bad
// file stops the start) and every period after; a bad file then keeps
// the last good overrides, is logged and shows in the metrics.
type Reloader struct {
	opts     ReloadOptions
	hash     [sha256.Size]byte
	loaded   bool
	success  prometheus.Gauge
	active   *prometheus.GaugeVec
	failures prometheus.Counter
	stop     chan struct{}
	done     chan struct{}
}

// StartReloader loads the file, then reloads it every period until Stop.
func StartReloader(o ReloadOptions) (*Reloader, error) {
	if o.Period <= 0 {
		return nil, fmt.Errorf("runtime_config.period must be > 0")
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	r := newReloader(o)
	if err := r.reload(); err != nil {
		return nil, err
	}
	go r.loop()
	return r, nil
}

func newReloader(o ReloadOptions) *Reloader {
	// Loki's names and its config="loki" label, so that its dashboards
	// and alerts apply.
	loki := prometheus.Labels{"config": "loki"}
	r := &Reloader{opts: o, stop: make(chan struct{}), done: make(chan struct{}),
		success: prometheus.NewGauge(prometheus.GaugeOpts{Name: "loki_runtime_config_last_reload_successful", ConstLabels: loki,
			Help: "Whether the last runtime-config reload attempt was successful."}),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "loki_runtime_config_hash", ConstLabels: loki,
			Help: "SHA-256 of the runtime configuration file in force."}, []string{"sha256"}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "vloki_runtime_config_reload_failures_total",
			Help: "Reads of the runtime configuration file that failed (the last good overrides stayed in force)."}),
	}
	if o.Registerer != nil {
		o.Registerer.MustRegister(r.success, r.active, r.failures)
	}
	return r
}

// Stop ends the reloads; the overrides stay as last loaded.
func (r *Reloader) Stop() {
	close(r.stop)
	<-r.done
}

func (r *Reloader) loop() {
	defer close(r.done)
	tick := time.NewTicker(r.opts.Period)
	defer tick.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-tick.C:
			if err := r.reload(); err != nil {
				// A typo must not take limits away: the last good ones stay.
				r.opts.Log.Error("runtime config reload failed; the last good overrides stay in force", "file", r.opts.File, "err", err)
			}
		}
	}
}

// reload reads the file and, when it changed, puts its overrides in force.
func (r *Reloader) reload() error {
	data, err := os.ReadFile(r.opts.File)
	if err != nil {
		return r.failed(err)
	}
	sum := sha256.Sum256(data)
	if r.loaded && sum == r.hash {
		r.success.Set(1)
		return nil
	}
	rc, err := ParseRuntimeConfig(data, r.opts.Overrides.Defaults(), r.opts.TenantOf)
	if err != nil {
		return r.failed(fmt.Errorf("runtime config %s: %w", r.opts.File, err))
	}
	for _, w := range rc.Warnings {
		r.opts.Log.Warn("runtime config: "+w, "file", r.opts.File)
	}
	changed := r.opts.Overrides.Set(rc.Tenants)
	if r.opts.Changed != nil {
		for _, t := range changed {
			r.opts.Changed(t)
		}
	}
	r.hash, r.loaded = sum, true
	r.success.Set(1)
	r.active.Reset()
	r.active.WithLabelValues(hex.EncodeToString(sum[:])).Set(1)
	r.opts.Log.Info("runtime config loaded", "file", r.opts.File, "tenants", len(rc.Tenants), "changed", len(changed))
	return nil
}

func (r *Reloader) failed(err error) error {
	r.success.Set(0)
	r.failures.Inc()
	return err
}
