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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/storage/remote"
	"github.com/prometheus/prometheus/tsdb/agent"
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

// walStorage is a tenant's WAL and the remote storage tailing it.
type walStorage struct {
	db   *agent.DB
	rs   *remote.Storage
	stop chan struct{}
}

func (w *walStorage) Appender(ctx context.Context) storage.Appender { return w.db.Appender(ctx) }

func (w *walStorage) Close() error {
	close(w.stop)
	return errors.Join(w.db.Close(), w.rs.Close())
}

// nudgePeriod is how often the WAL watchers are told to read: a write
// notification sent while a watcher is not waiting for one is dropped,
// and it would otherwise read only at its 15s timeout.
const nudgePeriod = 500 * time.Millisecond

func (w *walStorage) nudge() {
	t := time.NewTicker(nudgePeriod)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.rs.Notify()
		}
	}
}

// openWAL opens the tenant's WAL and starts sending from it; reg takes
// the remote storage's metrics.
func openWAL(rw RemoteWrite, tenant string, reg prometheus.Registerer, log *slog.Logger) (*walStorage, error) {
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
	rs := remote.NewStorage(log, reg, func() (int64, error) { return 0, nil }, dir, time.Minute, nil, false)
	// The WAL first: a queue started before it finds no WAL, retries 5s
	// later and then skips every sample older than that retry.
	db, err := agent.Open(log, nil, rs, dir, agent.DefaultOptions())
	if err != nil {
		_ = rs.Close()
		return nil, err
	}
	if err := rs.ApplyConfig(&config.Config{RemoteWriteConfigs: cfgs}); err != nil {
		_ = db.Close()
		_ = rs.Close()
		return nil, err
	}
	db.SetWriteNotified(rs) // samples leave at once, not at the next WAL read
	w := &walStorage{db: db, rs: rs, stop: make(chan struct{})}
	go w.nudge()
	return w, nil
}
