package eval

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/config"
)

// orgIDHeader is the tenant header; a client's own is dropped, as Loki
// drops it, so that no configuration can write as another tenant.
const orgIDHeader = "X-Scope-OrgID"

// configs are the tenant's remote-write queues: the URL's, then Loki's
// clients by id, each named <tenant>-rw-<id> as in Loki.
func (rw RemoteWrite) configs(tenant string) ([]*config.RemoteWriteConfig, error) {
	var out []*config.RemoteWriteConfig
	if rw.URL != "" {
		cfg, err := rw.config(tenant)
		if err != nil {
			return nil, err
		}
		out = append(out, cfg)
	}
	for _, id := range slices.Sorted(maps.Keys(rw.Clients)) {
		out = append(out, rw.clientConfig(tenant, id))
	}
	return out, nil
}

// clientConfig is Loki's client id for the tenant: no metadata, no
// exemplars, X-Scope-OrgID the tenant unless NoOrgIDHeader; Timeout and
// BatchSendDeadline, when set, override the client's.
func (rw RemoteWrite) clientConfig(tenant, id string) *config.RemoteWriteConfig {
	c := rw.Clients[id]
	c.Name = fmt.Sprintf("%s-rw-%s", tenant, id)
	c.SendExemplars = false
	c.MetadataConfig = config.MetadataConfig{Send: false}
	headers := map[string]string{}
	for k, v := range c.Headers {
		if !strings.EqualFold(strings.TrimSpace(k), orgIDHeader) {
			headers[k] = v
		}
	}
	if !rw.NoOrgIDHeader {
		headers[orgIDHeader] = tenant
	}
	c.Headers = headers
	if rw.Timeout > 0 {
		c.RemoteTimeout = model.Duration(rw.Timeout)
	}
	if rw.BatchSendDeadline > 0 {
		c.QueueConfig.BatchSendDeadline = model.Duration(rw.BatchSendDeadline)
	}
	return &c
}

// enabled says whether samples are sent anywhere.
func (rw RemoteWrite) enabled() bool { return rw.URL != "" || len(rw.Clients) > 0 }

// checkClients reports a bad configuration of the clients.
func (rw RemoteWrite) checkClients() error {
	if !rw.enabled() {
		return nil
	}
	if rw.Dir == "" {
		return errors.New("ruler remote write needs a WAL directory")
	}
	_, err := rw.configs("check")
	return err
}
