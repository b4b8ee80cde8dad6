package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/storage/remote"
	"github.com/prometheus/prometheus/tsdb/agent"
	"github.com/prometheus/prometheus/tsdb/wlog"
)

// RemoteWrite configures where recorded samples (and ALERTS,
// ALERTS_FOR_STATE) go: Prometheus remote write v1 through a per-tenant
// write-ahead log, as Loki's ruler with remote_write enabled.
type RemoteWrite struct {
	// URL is the receiver (empty: samples are discarded, as Loki's
	// ruler with remote_write off). User info gives basic auth.
	URL string
	// Dir holds each tenant's WAL, <Dir>/<tenant>; samples not yet sent
	// survive a restart there.
	Dir string
	// Timeout is the remote write request timeout (Prometheus' 30s when 0).
	Timeout time.Duration
	// BatchSendDeadline is Prometheus' queue batch_send_deadline (5s when
	// 0); tests shorten it.
	BatchSendDeadline time.Duration
	// Clients are Loki's remote_write.clients by id, sent besides URL.
	Clients map[string]config.RemoteWriteConfig
	// NoOrgIDHeader is Loki's add_org_id_header turned off.
	NoOrgIDHeader bool
}

func (rw RemoteWrite) config(tenant string) (*config.RemoteWriteConfig, error) {
	u, err := url.Parse(rw.URL)
	if err != nil {
		return nil, fmt.Errorf("ruler remote write url %q: %w", rw.URL, err)
	}
	if u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("ruler remote write url %q: want http(s)://host/path", rw.URL)
	}
	cfg := config.DefaultRemoteWriteConfig
	cfg.QueueConfig = config.DefaultQueueConfig
	cfg.MetadataConfig = config.DefaultMetadataConfig
	cfg.MetadataConfig.Send = false // as Loki's: no metadata, no exemplars
	cfg.Headers = map[string]string{"X-Scope-OrgID": tenant}
	cfg.Name = tenant + "-rw"
	if rw.Timeout > 0 {
		cfg.RemoteTimeout = model.Duration(rw.Timeout)
	}
	if rw.BatchSendDeadline > 0 {
		cfg.QueueConfig.BatchSendDeadline = model.Duration(rw.BatchSendDeadline)
	}
	if u.User != nil {
		pw, _ := u.User.Password()
		cfg.HTTPClientConfig.BasicAuth = &commoncfg.BasicAuth{Username: u.User.Username(), Password: commoncfg.Secret(pw)}
		u.User = nil
	}
	cfg.URL = &commoncfg.URL{URL: u}
	return &cfg, nil
}

// walStorage is a tenant's WAL and the remote storage tailing it,
// through the relay that notes what each receiver took; resends send
// what earlier runs left unsent.
type walStorage struct {
	db      *agent.DB
	rs      *remote.Storage
	relay   *relay
	sent    map[string]*sentLog
	dir     string
	log     *slog.Logger
	stop    chan struct{}
	cancel  context.CancelFunc
	resends sync.WaitGroup
	loop    sync.WaitGroup
}

func (w *walStorage) Appender(ctx context.Context) storage.Appender { return w.db.Appender(ctx) }

// Close stops appending and sending; what the receivers did not take
// stays in the WAL for the next start.
func (w *walStorage) Close() error {
	close(w.stop)
	w.loop.Wait()
	err := w.db.Close()
	w.relay.stop()
	err = errors.Join(err, w.rs.Close())
	w.cancel()
	w.resends.Wait()
	err = errors.Join(err, w.relay.Close())
	return errors.Join(err, saveSentLogs(sentPath(w.dir), w.sent, time.Now(), false))
}

// nudgePeriod is how often the WAL watchers are told to read: a write
// notification sent while a watcher is not waiting for one is dropped,
// and it would otherwise read only at its 15s timeout.
const nudgePeriod = 500 * time.Millisecond

// sentSavePeriod is how often what the receivers took is written down
// (when it changed): after a crash, what they took since is sent again.
const sentSavePeriod = 5 * time.Second

func (w *walStorage) run() {
	defer w.loop.Done()
	nudge := time.NewTicker(nudgePeriod)
	defer nudge.Stop()
	save := time.NewTicker(sentSavePeriod)
	defer save.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-nudge.C:
			w.rs.Notify()
		case <-save.C:
			if err := saveSentLogs(sentPath(w.dir), w.sent, time.Now(), false); err != nil {
				w.log.Error("ruler remote write: saving what was sent", "err", err)
			}
		}
	}
}

// openWAL opens the tenant's WAL and starts sending from it: first, per
// client, what earlier runs left unsent, then the queue. reg takes the
// remote storage's metrics, own vloki's.
func openWAL(rw RemoteWrite, tenant string, reg, own prometheus.Registerer, log *slog.Logger) (*walStorage, error) {
	cfgs, err := rw.configs(tenant)
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(tenant, `/\`) || tenant == "." || tenant == ".." {
		return nil, fmt.Errorf("invalid tenant %q", tenant)
	}
	dir := filepath.Join(rw.Dir, tenant)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// This run writes after the earlier runs' segments.
	last := -1
	if _, err := os.Stat(filepath.Join(dir, "wal")); err == nil {
		if _, last, err = wlog.Segments(filepath.Join(dir, "wal")); err != nil {
			return nil, err
		}
	}
	now := time.Now()
	sent, err := loadSentLogs(sentPath(dir), cfgs, now)
	if err != nil {
		log.Error("ruler remote write: reading what was sent; samples left unsent by the last run are not sent", "err", err)
		sent = newSentLogs(cfgs, now)
	}
	// Saved at once: after a crash, this run's unsent samples are resent.
	if err := saveSentLogs(sentPath(dir), sent, now, true); err != nil {
		return nil, err
	}
	rl, err := startRelay(cfgs, sent, log)
	if err != nil {
		return nil, err
	}
	w, err := startWAL(dir, rl, sent, reg, log)
	if err != nil {
		_ = rl.Close()
		return nil, err
	}
	w.startResends(last, now, newResendMetrics(own))
	return w, nil
}

// startWAL opens the WAL and the queues, which write to the relay.
func startWAL(dir string, rl *relay, sent map[string]*sentLog, reg prometheus.Registerer, log *slog.Logger) (*walStorage, error) {
	if reg != nil {
		reg = urlLabelRegisterer{reg, rl.receiverURLs()}
	}
	rs := remote.NewStorage(log, reg, func() (int64, error) { return 0, nil }, dir, time.Minute, nil, false)
	// The WAL first: a queue started before it finds no WAL, retries 5s
	// later and then skips every sample older than that retry.
	db, err := agent.Open(log, nil, rs, dir, agent.DefaultOptions())
	if err != nil {
		_ = rs.Close()
		return nil, err
	}
	if err := rs.ApplyConfig(&config.Config{RemoteWriteConfigs: rl.queueConfigs()}); err != nil {
		_ = db.Close()
		_ = rs.Close()
		return nil, err
	}
	db.SetWriteNotified(rs) // samples leave at once, not at the next WAL read
	w := &walStorage{db: db, rs: rs, relay: rl, sent: sent, dir: dir, log: log, stop: make(chan struct{})}
	w.loop.Add(1)
	go w.run()
	return w, nil
}

// startResends resends, per client, what the runs before left unsent in
// segments up to last; a client without any opens its queue at once.
func (w *walStorage) startResends(last int, now time.Time, metrics resendMetrics) {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	for _, rt := range w.relay.routes {
		metrics.init(rt.cfg.Name)
		if !rt.sent.resend || last < 0 {
			rt.sent.replayDone()
			continue
		}
		r := newResender(rt.cfg, rt.client, rt.sent, filepath.Join(w.dir, "wal"), last, now, metrics, w.log)
		w.resends.Add(1)
		go func() {
			defer w.resends.Done()
			r.run(ctx)
		}()
	}
}
